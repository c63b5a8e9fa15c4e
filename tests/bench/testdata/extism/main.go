// Command extism is the benchmarks' interceptor written with the plain
// github.com/extism/go-pdk and nothing of Airlock's PDK: the Extism
// convention (exports describe and invoke, input and output through the
// Extism host functions). It runs on Airlock and, unchanged, on
// github.com/extism/go-sdk. The invoke params are read without reflection
// (internal/jsonscan, as the Airlock PDK does) so that both plugins do the
// same work.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
package main

import (
	"github.com/extism/go-pdk"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
	"github.com/airlock-mcp/airlock/tests/bench/logic"
)

func main() {}

//go:wasmexport describe
func describe() int32 {
	pdk.OutputString(logic.DescribeJSON)
	return 0
}

var out []byte

//go:wasmexport invoke
func invoke() int32 {
	input := pdk.Input()
	var name, phase, payload []byte
	err := jsonscan.MembersTrusted(input, func(key, val []byte) error {
		switch string(key) {
		case `"name"`:
			name = val
		case `"phase"`:
			phase = val
		case `"payload"`:
			payload = val
		}
		return nil
	})
	if err != nil || name == nil || phase == nil || payload == nil {
		pdk.SetErrorString("bad invoke params")
		return 1
	}
	var msgs []byte
	deny := func(ptr string) {
		if len(msgs) > 0 {
			msgs = append(msgs, ',')
		}
		msgs = append(msgs, `{"path":`...)
		msgs = jsonscan.AppendString(msgs, ptr)
		msgs = append(msgs, `,"message":"`+logic.Message+`","severity":"error"}`...)
	}
	switch string(name) {
	case `"` + logic.Scan + `"`:
		if logic.ScanRaw(payload) {
			deny(logic.ScanPath)
		}
	case `"` + logic.Walk + `"`:
		if err := logic.WalkPayload(payload, deny); err != nil {
			pdk.SetError(err)
			return 1
		}
	default:
		pdk.SetErrorString("unknown interceptor " + string(name))
		return 1
	}
	out = append(out[:0], `{"interceptor":`...)
	out = append(out, name...)
	out = append(out, `,"type":"validation","phase":`...)
	out = append(out, phase...)
	if len(msgs) == 0 {
		out = append(out, `,"valid":true}`...)
	} else {
		out = append(out, `,"valid":false,"severity":"error","messages":[`...)
		out = append(out, msgs...)
		out = append(out, "]}"...)
	}
	pdk.Output(out)
	return 0
}
