;; The audience-share kernel of the search index (data/creators/search-index/share-kernel.ts).
;; Shares are unsigned 16-bit hundredths of a percent, one column per key, each
;; padded with zeros to a multiple of 32 positions, in memory the host owns.
;; Regenerate share-kernel.bytes.ts after an edit: npm run build:kernel
(module
  (import "env" "memory" (memory 1))
  ;; For each 32 positions: the $k columns listed at $cols (i32 addresses) summed
  ;; per position with unsigned saturation and compared with $m (>=), the 32
  ;; answers stored as one word at $out; when $edges is not 0, the sums equal to
  ;; $e are stored the same way at $edges, in the same pass over the columns.
  ;; Returns how many positions passed $m. $n positions, a multiple of 32.
  (func (export "sumCompare")
    (param $cols i32) (param $k i32) (param $n i32) (param $m i32) (param $e i32) (param $out i32)
    (param $edges i32)
    (result i32)
    (local $i i32) (local $j i32) (local $c i32) (local $bits i32) (local $count i32) (local $min v128)
    (local $edge v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $min (i16x8.splat (local.get $m)))
    (local.set $edge (i16x8.splat (local.get $e)))
    (local.set $n (i32.shl (local.get $n) (i32.const 1)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $j (i32.const 0))
        (block $summed
          (loop $column
            (br_if $summed (i32.ge_u (local.get $j) (local.get $k)))
            (local.set $c
              (i32.add (i32.load (i32.add (local.get $cols) (i32.shl (local.get $j) (i32.const 2)))) (local.get $i)))
            (local.set $a0 (i16x8.add_sat_u (local.get $a0) (v128.load (local.get $c))))
            (local.set $a1 (i16x8.add_sat_u (local.get $a1) (v128.load offset=16 (local.get $c))))
            (local.set $a2 (i16x8.add_sat_u (local.get $a2) (v128.load offset=32 (local.get $c))))
            (local.set $a3 (i16x8.add_sat_u (local.get $a3) (v128.load offset=48 (local.get $c))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $column)))
        (if (local.get $edges)
          (then
            (i32.store (local.get $edges)
              (i32.or
                (i32.or
                  (i16x8.bitmask (i16x8.eq (local.get $a0) (local.get $edge)))
                  (i32.shl (i16x8.bitmask (i16x8.eq (local.get $a1) (local.get $edge))) (i32.const 8)))
                (i32.or
                  (i32.shl (i16x8.bitmask (i16x8.eq (local.get $a2) (local.get $edge))) (i32.const 16))
                  (i32.shl (i16x8.bitmask (i16x8.eq (local.get $a3) (local.get $edge))) (i32.const 24)))))
            (local.set $edges (i32.add (local.get $edges) (i32.const 4)))))
        (local.set $bits
          (i32.or
            (i32.or
              (i16x8.bitmask (i16x8.ge_u (local.get $a0) (local.get $min)))
              (i32.shl (i16x8.bitmask (i16x8.ge_u (local.get $a1) (local.get $min))) (i32.const 8)))
            (i32.or
              (i32.shl (i16x8.bitmask (i16x8.ge_u (local.get $a2) (local.get $min))) (i32.const 16))
              (i32.shl (i16x8.bitmask (i16x8.ge_u (local.get $a3) (local.get $min))) (i32.const 24)))))
        (i32.store (local.get $out) (local.get $bits))
        (local.set $count (i32.add (local.get $count) (i32.popcnt (local.get $bits))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 64)))
        (br $next)))
    (local.get $count))
  ;; For each of the $n positions (a multiple of 32) whose bit is set in the
  ;; words at $edges, the shares of the $k columns listed at $cols added as
  ;; doubles in the columns' order, each its hundredths divided by 100 (the
  ;; very operations of JavaScript's `sum += view[p] / 100`), and compared with
  ;; $min (>=): the passing positions' bits set in the words at $out. Returns
  ;; how many passed.
  (func (export "edgeSums")
    (param $cols i32) (param $k i32) (param $n i32) (param $min f64) (param $edges i32) (param $out i32)
    (result i32)
    (local $w i32) (local $words i32) (local $bits i32) (local $b i32) (local $p i32) (local $j i32)
    (local $sum f64) (local $count i32) (local $at i32)
    (local.set $words (i32.shr_u (local.get $n) (i32.const 5)))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $w) (local.get $words)))
        (local.set $bits (i32.load (i32.add (local.get $edges) (i32.shl (local.get $w) (i32.const 2)))))
        (block $none
          (loop $bit
            (br_if $none (i32.eqz (local.get $bits)))
            (local.set $b (i32.ctz (local.get $bits)))
            (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
            (local.set $p (i32.add (i32.shl (local.get $w) (i32.const 5)) (local.get $b)))
            (local.set $sum (f64.const 0))
            (local.set $j (i32.const 0))
            (block $summed
              (loop $column
                (br_if $summed (i32.ge_u (local.get $j) (local.get $k)))
                (local.set $sum
                  (f64.add (local.get $sum)
                    (f64.div
                      (f64.convert_i32_u
                        (i32.load16_u
                          (i32.add
                            (i32.load (i32.add (local.get $cols) (i32.shl (local.get $j) (i32.const 2))))
                            (i32.shl (local.get $p) (i32.const 1)))))
                      (f64.const 100))))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $column)))
            (if (f64.ge (local.get $sum) (local.get $min))
              (then
                (local.set $at (i32.add (local.get $out) (i32.shl (local.get $w) (i32.const 2))))
                (i32.store (local.get $at) (i32.or (i32.load (local.get $at)) (i32.shl (i32.const 1) (local.get $b))))
                (local.set $count (i32.add (local.get $count) (i32.const 1)))))
            (br $bit)))
        (local.set $w (i32.add (local.get $w) (i32.const 1)))
        (br $word)))
    (local.get $count)))
