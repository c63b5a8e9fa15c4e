// Command extism is a test plugin that follows the Extism convention through
// the plain github.com/extism/go-pdk and nothing of Airlock: it proves that an
// ordinary Extism Go plugin loads and runs. Its "misbehave" interceptor does,
// on request, everything a plugin must not do, so the host's limits can be
// tested against a real module.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/extism/go-pdk"
)

func main() {}

const describeOK = `{"interceptors":[
 {"name":"redact","version":"1.0.0","type":"mutation","hooks":[{"events":["tools/call"],"phase":"both"}]},
 {"name":"redact-fast","type":"mutation","hooks":[{"events":["tools/call"],"phase":"request"}]},
 {"name":"guard","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}]},
 {"name":"audit","type":"sink","mode":"audit","hooks":[{"events":["*"],"phase":"both"}]},
 {"name":"probe","type":"validation","hooks":[{"events":["tools/list"],"phase":"request"}]},
 {"name":"misbehave","type":"validation","hooks":[{"events":["test/misbehave"],"phase":"request"}]}
]}`

// describeBad has an invalid event pattern in its second hook.
const describeBad = `{"interceptors":[
 {"name":"fine","type":"sink","hooks":[{"events":["tools/call"],"phase":"request"}]},
 {"name":"broken","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"},{"events":["tools/call","not an event"],"phase":"response"}]}
]}`

//go:wasmexport describe
func describe() int32 {
	switch mode, _ := pdk.GetConfig("describe"); mode {
	case "bad":
		pdk.OutputString(describeBad)
	case "notjson":
		pdk.OutputString(`{"interceptors":[`)
	case "fail":
		pdk.SetErrorString("describe refused on purpose")
		return 1
	default:
		pdk.OutputString(describeOK)
	}
	return 0
}

type params struct {
	Name    string          `json:"name"`
	Event   string          `json:"event"`
	Phase   string          `json:"phase"`
	Payload json.RawMessage `json:"payload"`
	Config  json.RawMessage `json:"config"`
	Context json.RawMessage `json:"context"`
}

type mutation struct {
	Interceptor string          `json:"interceptor"`
	Type        string          `json:"type"`
	Phase       string          `json:"phase"`
	Modified    bool            `json:"modified"`
	Payload     json.RawMessage `json:"payload"`
}

type message struct {
	Path     string `json:"path,omitempty"`
	Message  string `json:"message"`
	Severity string `json:"severity"`
}

type validation struct {
	Interceptor string          `json:"interceptor"`
	Type        string          `json:"type"`
	Phase       string          `json:"phase"`
	Info        json.RawMessage `json:"info,omitempty"`
	Valid       bool            `json:"valid"`
	Severity    string          `json:"severity,omitempty"`
	Messages    []message       `json:"messages,omitempty"`
}

type sink struct {
	Interceptor string             `json:"interceptor"`
	Type        string             `json:"type"`
	Phase       string             `json:"phase"`
	Recorded    bool               `json:"recorded"`
	Metrics     map[string]float64 `json:"metrics,omitempty"`
}

//go:wasmexport invoke
func invoke() int32 {
	input := pdk.Input()
	if out, ok, err := redactFast(input); ok {
		if err != nil {
			pdk.SetError(err)
			return 1
		}
		pdk.Output(out)
		return 0
	}
	var p params
	if err := json.Unmarshal(input, &p); err != nil {
		pdk.SetErrorString("bad input: " + err.Error())
		return 1
	}
	var out any
	switch p.Name {
	case "redact":
		out = redact(&p)
	case "guard":
		v := validation{Interceptor: p.Name, Type: "validation", Phase: p.Phase, Valid: true}
		if bytes.Contains(p.Payload, []byte("forbidden")) {
			v.Valid, v.Severity = false, "error"
			v.Messages = []message{{Path: "/arguments", Message: "forbidden word", Severity: "error"}}
		}
		out = v
	case "audit":
		n := pdk.GetVarInt("count") + 1
		pdk.SetVarInt("count", n)
		pdk.Log(pdk.LogInfo, fmt.Sprintf("audit %s %s #%d", p.Event, p.Phase, n))
		out = sink{Interceptor: p.Name, Type: "sink", Phase: p.Phase, Recorded: true,
			Metrics: map[string]float64{"count": float64(n), "bytes": float64(len(p.Payload))}}
	case "probe":
		out = probe(&p)
	case "misbehave":
		return misbehave(&p)
	default:
		pdk.SetErrorString("unknown interceptor " + p.Name)
		return 1
	}
	if err := pdk.OutputJSON(out); err != nil {
		pdk.SetError(err)
		return 1
	}
	return 0
}

// redact is the benchmark's interceptor logic; the direct-ABI test plugin has
// the same function, so the comparison measures the ABI and nothing else.
func redact(p *params) mutation {
	out := bytes.ReplaceAll(p.Payload, []byte("secret"), []byte("[REDACTED]"))
	return mutation{Interceptor: p.Name, Type: "mutation", Phase: p.Phase,
		Modified: len(out) != len(p.Payload), Payload: out}
}

// probe reports what the sandbox lets the plugin see.
func probe(p *params) validation {
	greeting, _ := pdk.GetConfig("greeting")
	_, missingOK := pdk.GetConfig("no-such-key")
	info := map[string]any{
		"greeting":   greeting,
		"missingKey": missingOK,
		"callConfig": p.Config,
		"context":    p.Context,
		"env":        os.Environ(),
		"args":       os.Args,
		"home":       os.Getenv("HOME"),
	}
	if _, err := os.ReadFile("/etc/hostname"); err != nil {
		info["readFile"] = err.Error()
	} else {
		info["readFile"] = "read succeeded"
	}
	if entries, err := os.ReadDir("/"); err != nil {
		info["readDir"] = err.Error()
	} else {
		info["readDir"] = fmt.Sprintf("%d entries", len(entries))
	}
	if err := os.WriteFile("/tmp/airlock-probe", []byte("x"), 0o600); err != nil {
		info["writeFile"] = err.Error()
	} else {
		info["writeFile"] = "write succeeded"
	}
	raw, _ := json.Marshal(info)
	return validation{Interceptor: p.Name, Type: "validation", Phase: p.Phase, Valid: true, Info: raw}
}

var sinkHole []byte
var keep [][]byte

func misbehave(p *params) int32 {
	var cfg struct {
		Do  string `json:"do"`
		URL string `json:"url"`
		N   int    `json:"n"`
	}
	_ = json.Unmarshal(p.Config, &cfg)
	ok := fmt.Sprintf(`{"interceptor":%q,"type":"validation","phase":%q,"valid":true}`, p.Name, p.Phase)
	switch cfg.Do {
	case "loop":
		for i := 0; ; i++ {
			if i == -1 {
				break
			}
		}
	case "oom":
		for {
			keep = append(keep, make([]byte, 1<<20))
		}
	case "panic":
		var m map[string]int
		m["boom"] = 1 // assignment to a nil map: a Go panic
	case "exit":
		os.Exit(3)
	case "sleep":
		time.Sleep(time.Duration(cfg.N) * time.Millisecond)
	case "error":
		pdk.SetErrorString("refused: " + cfg.URL)
		return 1
	case "errnomsg":
		return 7
	case "big":
		pdk.OutputString(strings.Repeat("x", cfg.N))
		return 0
	case "badjson":
		pdk.OutputString(`{"interceptor":"misbehave","type":"validation",`)
		return 0
	case "wrongecho":
		pdk.OutputString(fmt.Sprintf(`{"interceptor":"someone-else","type":"validation","phase":%q,"valid":true}`, p.Phase))
		return 0
	case "wrongtype":
		pdk.OutputString(fmt.Sprintf(`{"interceptor":%q,"type":"sink","phase":%q,"recorded":true}`, p.Name, p.Phase))
		return 0
	case "wrongphase":
		pdk.OutputString(fmt.Sprintf(`{"interceptor":%q,"type":"validation","phase":"response","valid":true}`, p.Name))
		return 0
	case "nooutput":
		return 0
	case "varbomb":
		pdk.SetVar("bomb", make([]byte, cfg.N))
	case "logs":
		pdk.Log(pdk.LogTrace, "trace line")
		pdk.Log(pdk.LogDebug, "debug line")
		pdk.Log(pdk.LogInfo, "info line")
		pdk.Log(pdk.LogWarn, "warn line")
		pdk.Log(pdk.LogError, "error line")
	case "http":
		req := pdk.NewHTTPRequest(pdk.MethodGet, cfg.URL)
		req.SetHeader("X-Probe", "airlock")
		res := req.Send()
		ok = fmt.Sprintf(`{"interceptor":%q,"type":"validation","phase":%q,"valid":true,"info":{"status":%d,"body":%q,"header":%q}}`,
			p.Name, p.Phase, res.Status(), res.Body(), res.Headers()["x-reply"])
	case "inputoffset":
		// Reads the input through a handle rather than input_load_*.
		n := extismLength(inputOffset())
		ok = fmt.Sprintf(`{"interceptor":%q,"type":"validation","phase":%q,"valid":true,"info":{"n":%d}}`, p.Name, p.Phase, n)
	case "state":
		// Module globals persist between calls of one instance.
		sinkHole = append(sinkHole, 'x')
		ok = fmt.Sprintf(`{"interceptor":%q,"type":"validation","phase":%q,"valid":true,"info":{"calls":%d}}`, p.Name, p.Phase, len(sinkHole))
	}
	pdk.OutputString(ok)
	return 0
}

//go:wasmimport extism:host/env input_offset
func inputOffset() uint64

//go:wasmimport extism:host/env length
func extismLength(h uint64) uint64
