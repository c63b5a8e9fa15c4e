;; wat-count: a sink on Airlock's direct ABI (abi/README.md section 4), in
;; WebAssembly text. It counts the calls it sees in the plugin variable
;; "n" (airlock:host/v1 var_get/var_set, shared by all instances) and
;; reports the count as a metric.
;;
;; Build: wat2wasm count.wat -o count.wasm
;;
;; It hooks only the response phase of every event, so its result echoes
;; "response" as a constant.
(module
  (import "airlock:host/v1" "var_get" (func $var_get (param i32 i32 i32 i32) (result i32)))
  (import "airlock:host/v1" "var_set" (func $var_set (param i32 i32 i32 i32) (result i32)))

  ;; Page 0: constants and scratch; the input buffer starts at page 1.
  (memory (export "memory") 1)

  ;; describe: 169 bytes at 1024
  (data (i32.const 1024) "{\"interceptors\":[{\"name\":\"wat-count\",\"version\":\"1.0.0\",\"description\":\"Counts responses (WAT, direct ABI).\",\"type\":\"sink\",\"hooks\":[{\"events\":[\"*\"],\"phase\":\"response\"}]}]}")
  ;; result prefix: 91 bytes at 2048, then the count, then "}}"
  (data (i32.const 2048) "{\"interceptor\":\"wat-count\",\"type\":\"sink\",\"phase\":\"response\",\"recorded\":true,\"metrics\":{\"n\":")
  ;; the variable's key "n" at 3000; its 4-byte value at 3008
  (data (i32.const 3000) "n")

  (func $pack (param $ptr i32) (param $len i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32))
            (i64.extend_i32_u (local.get $len))))

  (func (export "airlock_abi_version") (result i32) (i32.const 1))

  ;; One input buffer at 65536, grown to fit.
  (func (export "airlock_alloc") (param $size i32) (result i32)
    (local $pages i32)
    (local.set $pages (i32.add (i32.const 1)
      (i32.shr_u (i32.add (local.get $size) (i32.const 65535)) (i32.const 16))))
    (if (i32.gt_u (local.get $pages) (memory.size))
      (then (if (i32.eq (memory.grow (i32.sub (local.get $pages) (memory.size))) (i32.const -1))
        (then (return (i32.const 0))))))
    (i32.const 65536))

  (func (export "airlock_describe") (result i64)
    (call $pack (i32.const 1024) (i32.const 169)))

  (func (export "airlock_invoke") (param $ptr i32) (param $len i32) (result i64)
    (local $n i32) (local $end i32) (local $start i32) (local $i i32) (local $j i32) (local $c i32)
    ;; n = var "n" (4 bytes, little-endian) + 1; unset reads as 0.
    (if (i32.eq (call $var_get (i32.const 3000) (i32.const 1) (i32.const 3008) (i32.const 4)) (i32.const 4))
      (then (local.set $n (i32.load (i32.const 3008)))))
    (local.set $n (i32.add (local.get $n) (i32.const 1)))
    (i32.store (i32.const 3008) (local.get $n))
    (drop (call $var_set (i32.const 3000) (i32.const 1) (i32.const 3008) (i32.const 4)))
    ;; Write the decimal digits of n after the prefix, reversed, then flip.
    (local.set $start (i32.const 2139))
    (local.set $end (local.get $start))
    (loop $digits
      (i32.store8 (local.get $end) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10))))
      (local.set $end (i32.add (local.get $end) (i32.const 1)))
      (local.set $n (i32.div_u (local.get $n) (i32.const 10)))
      (br_if $digits (i32.ne (local.get $n) (i32.const 0))))
    (local.set $i (local.get $start))
    (local.set $j (i32.sub (local.get $end) (i32.const 1)))
    (block $done (loop $flip
      (br_if $done (i32.ge_u (local.get $i) (local.get $j)))
      (local.set $c (i32.load8_u (local.get $i)))
      (i32.store8 (local.get $i) (i32.load8_u (local.get $j)))
      (i32.store8 (local.get $j) (local.get $c))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (local.set $j (i32.sub (local.get $j) (i32.const 1)))
      (br $flip)))
    (i32.store8 (local.get $end) (i32.const 125))                       ;; }
    (i32.store8 (i32.add (local.get $end) (i32.const 1)) (i32.const 125)) ;; }
    (call $pack (i32.const 2048) (i32.sub (i32.add (local.get $end) (i32.const 2)) (i32.const 2048))))
)
