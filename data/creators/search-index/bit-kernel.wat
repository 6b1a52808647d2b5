;; The bit-array kernel of the search index (data/creators/search-index/bit-kernel.ts).
;; Bit arrays are words of 32 positions, each padded with zero words to a
;; multiple of 16 bytes, in memory the host owns; $n is their padded length in
;; bytes. Sixteen bytes (128 positions) an instruction, with the hardware's
;; popcount for the counts, written out in each loop (a call per 16 bytes cost
;; as much as the loop).
;; Regenerate bit-kernel.bytes.ts after an edit: npm run build:kernel
(module
  (import "env" "memory" (memory 1))
  ;; The AND of 2 operands' bytes [0, $n) stored at $out; returns how many bits it holds.
  (func (export "and2") (param $a i32) (param $b i32) (param $out i32) (param $n i32) (result i32)
    (local $i i32) (local $v v128) (local $count i64)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $v
          (v128.and (v128.load (i32.add (local.get $a) (local.get $i)))
          (v128.load (i32.add (local.get $b) (local.get $i)))))
        (v128.store (i32.add (local.get $out) (local.get $i)) (local.get $v))
        (local.set $count (i64.add (local.get $count) (i64.add (i64.popcnt (i64x2.extract_lane 0 (local.get $v))) (i64.popcnt (i64x2.extract_lane 1 (local.get $v))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (i32.wrap_i64 (local.get $count)))
  ;; The AND of 3 operands' bytes [0, $n) stored at $out; returns how many bits it holds.
  (func (export "and3") (param $a i32) (param $b i32) (param $c i32) (param $out i32) (param $n i32) (result i32)
    (local $i i32) (local $v v128) (local $count i64)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $v
          (v128.and (v128.and (v128.load (i32.add (local.get $a) (local.get $i)))
          (v128.load (i32.add (local.get $b) (local.get $i))))
          (v128.load (i32.add (local.get $c) (local.get $i)))))
        (v128.store (i32.add (local.get $out) (local.get $i)) (local.get $v))
        (local.set $count (i64.add (local.get $count) (i64.add (i64.popcnt (i64x2.extract_lane 0 (local.get $v))) (i64.popcnt (i64x2.extract_lane 1 (local.get $v))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (i32.wrap_i64 (local.get $count)))
  ;; The AND of 4 operands' bytes [0, $n) stored at $out; returns how many bits it holds.
  (func (export "and4") (param $a i32) (param $b i32) (param $c i32) (param $d i32) (param $out i32) (param $n i32) (result i32)
    (local $i i32) (local $v v128) (local $count i64)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $v
          (v128.and (v128.and (v128.and (v128.load (i32.add (local.get $a) (local.get $i)))
          (v128.load (i32.add (local.get $b) (local.get $i))))
          (v128.load (i32.add (local.get $c) (local.get $i))))
          (v128.load (i32.add (local.get $d) (local.get $i)))))
        (v128.store (i32.add (local.get $out) (local.get $i)) (local.get $v))
        (local.set $count (i64.add (local.get $count) (i64.add (i64.popcnt (i64x2.extract_lane 0 (local.get $v))) (i64.popcnt (i64x2.extract_lane 1 (local.get $v))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (i32.wrap_i64 (local.get $count)))
  ;; $a AND NOT $b, stored at $out (which may be $a).
  (func (export "andNot") (param $a i32) (param $b i32) (param $out i32) (param $n i32)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (v128.store (i32.add (local.get $out) (local.get $i))
          (v128.andnot (v128.load (i32.add (local.get $a) (local.get $i))) (v128.load (i32.add (local.get $b) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next))))
  ;; $a OR $b, stored at $out (which may be $a).
  (func (export "or") (param $a i32) (param $b i32) (param $out i32) (param $n i32)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (v128.store (i32.add (local.get $out) (local.get $i))
          (v128.or (v128.load (i32.add (local.get $a) (local.get $i))) (v128.load (i32.add (local.get $b) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next))))
  ;; How many bits $a AND $b hold (nothing stored).
  (func (export "countAnd") (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32) (local $v v128) (local $count i64)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $v
          (v128.and (v128.load (i32.add (local.get $a) (local.get $i))) (v128.load (i32.add (local.get $b) (local.get $i)))))
        (local.set $count (i64.add (local.get $count) (i64.add (i64.popcnt (i64x2.extract_lane 0 (local.get $v))) (i64.popcnt (i64x2.extract_lane 1 (local.get $v))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (i32.wrap_i64 (local.get $count)))
  ;; How many bits the bytes [$a, $a + $n) hold.
  (func (export "count") (param $a i32) (param $n i32) (result i32)
    (local $i i32) (local $count i64)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $count
          (i64.add (local.get $count)
            (i64.add
              (i64.popcnt (i64.load (i32.add (local.get $a) (local.get $i))))
              (i64.popcnt (i64.load offset=8 (i32.add (local.get $a) (local.get $i)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (i32.wrap_i64 (local.get $count)))
  ;; Each of the $n positions listed at $list (i32) set (OR) in the bit array at $out.
  (func (export "setBits") (param $list i32) (param $n i32) (param $out i32)
    (local $end i32) (local $p i32) (local $at i32)
    (local.set $end (i32.add (local.get $list) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $list) (local.get $end)))
        (local.set $p (i32.load (local.get $list)))
        (local.set $at (i32.add (local.get $out) (i32.shl (i32.shr_u (local.get $p) (i32.const 5)) (i32.const 2))))
        (i32.store (local.get $at) (i32.or (i32.load (local.get $at)) (i32.shl (i32.const 1) (local.get $p))))
        (local.set $list (i32.add (local.get $list) (i32.const 4)))
        (br $next))))
  ;; Each of the $n positions listed at $list (i32) cleared in the bit array at $out.
  (func (export "clearBits") (param $list i32) (param $n i32) (param $out i32)
    (local $end i32) (local $p i32) (local $at i32)
    (local.set $end (i32.add (local.get $list) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $list) (local.get $end)))
        (local.set $p (i32.load (local.get $list)))
        (local.set $at (i32.add (local.get $out) (i32.shl (i32.shr_u (local.get $p) (i32.const 5)) (i32.const 2))))
        (i32.store (local.get $at)
          (i32.and (i32.load (local.get $at)) (i32.xor (i32.shl (i32.const 1) (local.get $p)) (i32.const -1))))
        (local.set $list (i32.add (local.get $list) (i32.const 4)))
        (br $next))))
)
