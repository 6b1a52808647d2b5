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
    (local.get $count)))
