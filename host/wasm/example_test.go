package wasm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// Load a plugin with tighter limits than the defaults, list its
// interceptors, and invoke one.
func Example() {
	ctx := context.Background()
	engine, err := wasm.NewEngine(wasm.EngineOptions{}) // cache in the user's cache directory
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Close(ctx)

	plugin, err := engine.LoadFile(ctx, "redact.wasm", wasm.Options{
		Config: map[string]string{"mask": "[REDACTED]"},
		Limits: wasm.Limits{MemoryPages: 256, Timeout: 200 * time.Millisecond, MaxInstances: 4},
	})
	if err != nil {
		log.Fatal(err) // names the plugin and what to fix
	}
	defer plugin.Close(ctx)

	descs, _ := plugin.Interceptors(ctx)
	for _, d := range descs {
		fmt.Println(d.Name, d.Type)
	}
	res, err := plugin.Invoke(ctx, &spec.InvokeParams{
		Name: descs[0].Name, Event: "tools/call", Phase: spec.PhaseRequest,
		Payload: json.RawMessage(`{"name":"search","arguments":{"q":"my secret"}}`),
	})
	if err != nil {
		log.Fatal(err) // a *spec.Error: -32602 for a bad call, -32603 when the plugin failed
	}
	fmt.Println(res.Modified, string(res.Payload))
}
