// Command direct is a test plugin on Airlock's direct ABI (abi/README.md
// section 4), with the same "redact" logic as the Extism test plugin so that
// the benchmark compares calling conventions, not interceptors.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
)

func main() {}

func describe() ([]byte, bool) {
	return []byte(`{"interceptors":[
 {"name":"redact","version":"1.0.0","type":"mutation","hooks":[{"events":["tools/call"],"phase":"both"}]},
 {"name":"redact-fast","type":"mutation","hooks":[{"events":["tools/call"],"phase":"request"}]},
 {"name":"count","type":"sink","hooks":[{"events":["*"],"phase":"request"}]},
 {"name":"misbehave","type":"validation","hooks":[{"events":["test/misbehave"],"phase":"request"}]}
]}`), false
}

type params struct {
	Name    string          `json:"name"`
	Event   string          `json:"event"`
	Phase   string          `json:"phase"`
	Payload json.RawMessage `json:"payload"`
	Config  json.RawMessage `json:"config"`
}

type mutation struct {
	Interceptor string          `json:"interceptor"`
	Type        string          `json:"type"`
	Phase       string          `json:"phase"`
	Modified    bool            `json:"modified"`
	Payload     json.RawMessage `json:"payload"`
}

func invoke(in []byte) ([]byte, bool) {
	if out, ok, err := redactFast(in); ok {
		if err != nil {
			return []byte(err.Error()), true
		}
		return out, false
	}
	var p params
	if err := json.Unmarshal(in, &p); err != nil {
		return []byte("bad input: " + err.Error()), true
	}
	switch p.Name {
	case "redact":
		out, err := json.Marshal(redact(&p))
		if err != nil {
			return []byte(err.Error()), true
		}
		return out, false
	case "count":
		var n uint64
		if v, ok := getVar("count"); ok && len(v) == 8 {
			n = binary.LittleEndian.Uint64(v)
		}
		n++
		stored := setVar("count", binary.LittleEndian.AppendUint64(nil, n))
		logf(2, fmt.Sprintf("count %s #%d", p.Event, n))
		return []byte(fmt.Sprintf(`{"interceptor":%q,"type":"sink","phase":%q,"recorded":%v,"metrics":{"count":%d}}`,
			p.Name, p.Phase, stored, n)), false
	case "misbehave":
		return misbehave(&p)
	}
	return []byte("unknown interceptor " + p.Name), true
}

// redact is the benchmark's interceptor logic, identical to the Extism test
// plugin's.
func redact(p *params) mutation {
	out := bytes.ReplaceAll(p.Payload, []byte("secret"), []byte("[REDACTED]"))
	return mutation{Interceptor: p.Name, Type: "mutation", Phase: p.Phase,
		Modified: len(out) != len(p.Payload), Payload: out}
}

func misbehave(p *params) ([]byte, bool) {
	var cfg struct {
		Do string `json:"do"`
		N  int    `json:"n"`
	}
	_ = json.Unmarshal(p.Config, &cfg)
	switch cfg.Do {
	case "loop":
		for i := 0; ; i++ {
			if i == -1 {
				break
			}
		}
	case "panic":
		var m map[string]int
		m["boom"] = 1
	case "error":
		return []byte("refused on purpose"), true
	case "big":
		return bytes.Repeat([]byte("x"), cfg.N), false
	case "varbomb":
		if !setVar("bomb", make([]byte, cfg.N)) {
			return []byte("var store full"), true
		}
	}
	return []byte(fmt.Sprintf(`{"interceptor":%q,"type":"validation","phase":%q,"valid":true}`, p.Name, p.Phase)), false
}
