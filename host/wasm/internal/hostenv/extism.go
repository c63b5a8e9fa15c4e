package hostenv

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/airlock-mcp/airlock/abi"
)

const (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

// hostFunc is one function of a host module.
type hostFunc struct {
	name    string
	params  []api.ValueType
	results []api.ValueType
	fn      api.GoModuleFunc
}

// extismFuncs are the functions of "extism:host/env", with the signatures
// the Extism PDKs import. Each one works on the Call of the current guest
// call; the per-byte ones (load/store) do nothing else, since a Go plugin
// moves its input and output through them eight bytes at a time.
var extismFuncs = []hostFunc{
	{"alloc", []api.ValueType{i64}, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		c.checkDeadline()
		s[0] = c.alloc(s[0])
	}},
	{"free", []api.ValueType{i64}, nil, func(ctx context.Context, _ api.Module, s []uint64) {
		callFrom(ctx).free(s[0])
	}},
	{"length", []api.ValueType{i64}, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		n, _ := callFrom(ctx).length(s[0])
		s[0] = n
	}},
	{"length_unsafe", []api.ValueType{i64}, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		n, _ := callFrom(ctx).length(s[0])
		s[0] = n
	}},
	{"load_u8", []api.ValueType{i64}, []api.ValueType{i32}, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		if s[0] >= uint64(len(c.arena)) {
			c.fail("load_u8: address %d outside extism host memory", s[0])
		}
		s[0] = uint64(c.arena[s[0]])
	}},
	{"load_u64", []api.ValueType{i64}, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		if s[0] > uint64(len(c.arena)) || uint64(len(c.arena))-s[0] < 8 {
			c.fail("load_u64: address %d outside extism host memory", s[0])
		}
		s[0] = binary.LittleEndian.Uint64(c.arena[s[0]:])
	}},
	{"store_u8", []api.ValueType{i64, i32}, nil, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		if s[0] >= uint64(len(c.arena)) {
			c.fail("store_u8: address %d outside extism host memory", s[0])
		}
		c.arena[s[0]] = byte(s[1])
	}},
	{"store_u64", []api.ValueType{i64, i64}, nil, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		if s[0] > uint64(len(c.arena)) || uint64(len(c.arena))-s[0] < 8 {
			c.fail("store_u64: address %d outside extism host memory", s[0])
		}
		binary.LittleEndian.PutUint64(c.arena[s[0]:], s[1])
	}},
	{"input_length", nil, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		s[0] = uint64(len(callFrom(ctx).input))
	}},
	{"input_load_u8", []api.ValueType{i64}, []api.ValueType{i32}, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		if s[0] >= uint64(len(c.input)) {
			c.fail("input_load_u8: offset %d outside the input", s[0])
		}
		s[0] = uint64(c.input[s[0]])
	}},
	{"input_load_u64", []api.ValueType{i64}, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		if s[0] > uint64(len(c.input)) || uint64(len(c.input))-s[0] < 8 {
			c.fail("input_load_u64: offset %d outside the input", s[0])
		}
		s[0] = binary.LittleEndian.Uint64(c.input[s[0]:])
	}},
	{"input_offset", nil, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		// Extism keeps the input in host memory; Airlock keeps it apart (no
		// copy on the hot path) and copies it into the arena only for a
		// plugin that asks for it as a handle.
		c := callFrom(ctx)
		if c.inputHandle == 0 {
			c.inputHandle = c.allocBytes(c.input)
			c.last = 0 // the plugin does not own it: free must not give it back
		}
		s[0] = c.inputHandle
	}},
	{"output_set", []api.ValueType{i64, i64}, nil, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		c.checkDeadline()
		h, n := s[0], s[1]
		if h > uint64(len(c.arena)) || uint64(len(c.arena))-h < n {
			c.fail("output_set: %d bytes at handle %d lie outside extism host memory", n, h)
		}
		c.outSet, c.outOff, c.outLen = true, h, n
		// The output must stay as it is: never give its block back early.
		c.last = 0
	}},
	{"error_set", []api.ValueType{i64}, nil, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		c.errSet, c.errMsg = true, string(c.block(s[0], "error_set"))
	}},
	{"config_get", []api.ValueType{i64}, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		v, ok := c.sh.Config[string(c.block(s[0], "config_get"))]
		if !ok {
			s[0] = 0
			return
		}
		h := c.alloc(uint64(len(v)))
		copy(c.arena[h:], v)
		s[0] = h
	}},
	{"var_get", []api.ValueType{i64}, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		key := c.block(s[0], "var_get")
		var h uint64
		// alloc may move the arena, but key keeps the old array alive and
		// unchanged: it stays valid while the value is copied.
		c.sh.Vars.getInto(key, func(v []byte) { h = c.allocBytes(v) })
		s[0] = h
	}},
	{"var_set", []api.ValueType{i64, i64}, nil, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		c.checkDeadline()
		key := string(c.block(s[0], "var_set"))
		if s[1] == 0 {
			c.sh.Vars.Delete(key)
			return
		}
		if !c.sh.Vars.Set(key, c.block(s[1], "var_set")) {
			c.fail("var_set %q: the plugin's variable store is full (limit %d bytes)", key, c.sh.Vars.limit)
		}
	}},
	{"log_trace", []api.ValueType{i64}, nil, extismLog(abi.LogTrace)},
	{"log_debug", []api.ValueType{i64}, nil, extismLog(abi.LogDebug)},
	{"log_info", []api.ValueType{i64}, nil, extismLog(abi.LogInfo)},
	{"log_warn", []api.ValueType{i64}, nil, extismLog(abi.LogWarn)},
	{"log_error", []api.ValueType{i64}, nil, extismLog(abi.LogError)},
	{"get_log_level", nil, []api.ValueType{i32}, func(ctx context.Context, _ api.Module, s []uint64) {
		s[0] = uint64(uint32(callFrom(ctx).logLevel(ctx)))
	}},
	{"http_request", []api.ValueType{i64, i64}, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		c.checkDeadline()
		s[0] = c.httpRequest(s[0], s[1])
	}},
	{"http_status_code", nil, []api.ValueType{i32}, func(ctx context.Context, _ api.Module, s []uint64) {
		s[0] = uint64(uint32(callFrom(ctx).httpStatus))
	}},
	{"http_headers", nil, []api.ValueType{i64}, func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		if c.httpHeaders == nil {
			s[0] = 0
			return
		}
		s[0] = c.allocBytes(c.httpHeaders)
	}},
}

func extismLog(level int32) api.GoModuleFunc {
	return func(ctx context.Context, _ api.Module, s []uint64) {
		c := callFrom(ctx)
		c.checkDeadline()
		c.log(level, c.block(s[0], "log"))
	}
}

// httpRequest performs an Extism http_request: denied (a trap, as in Extism)
// unless the URL's host is allowed by the plugin's configuration.
func (c *Call) httpRequest(reqH, bodyH uint64) uint64 {
	c.httpStatus, c.httpHeaders = 0, nil
	var req struct {
		URL     string            `json:"url"`
		Method  string            `json:"method"`
		Headers map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(c.block(reqH, "http_request"), &req); err != nil {
		c.fail("http_request: malformed request: %v", err)
	}
	u, err := url.Parse(req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		c.fail("http_request: %q is not an http(s) URL", req.URL)
	}
	if !hostAllowed(c.sh.AllowedHosts, u.Hostname()) {
		c.fail("http_request to %q denied: host %q is not in the plugin's allowed hosts", req.URL, u.Hostname())
	}
	var body io.Reader
	if bodyH != 0 {
		body = bytes.NewReader(bytes.Clone(c.block(bodyH, "http_request body")))
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	hreq, err := http.NewRequestWithContext(c.ctx, method, u.String(), body)
	if err != nil {
		c.fail("http_request: %v", err)
	}
	for k, v := range req.Headers {
		hreq.Header.Set(k, v)
	}
	resp, err := c.sh.HTTPClient.Do(hreq)
	if err != nil {
		c.fail("http_request: %v", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.sh.MaxHTTPBody)+1))
	if err != nil {
		c.fail("http_request: reading the response: %v", err)
	}
	if len(data) > c.sh.MaxHTTPBody {
		c.fail("http_request: response body exceeds %d bytes", c.sh.MaxHTTPBody)
	}
	headers := make(map[string]string, len(resp.Header))
	for k, v := range resp.Header {
		headers[strings.ToLower(k)] = strings.Join(v, ",")
	}
	c.httpHeaders, _ = json.Marshal(headers)
	c.httpStatus = int32(resp.StatusCode)
	if len(data) == 0 {
		return 0
	}
	return c.allocBytes(data)
}

// NewHTTPClient returns the client of a plugin's http_request: redirects are
// followed only to allowed hosts, or a plugin allowed to reach one host could
// be sent anywhere by it.
func NewHTTPClient(allowed []string) *http.Client {
	return &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if !hostAllowed(allowed, req.URL.Hostname()) {
			return fmt.Errorf("redirect to %q denied: host %q is not in the plugin's allowed hosts", req.URL, req.URL.Hostname())
		}
		return nil
	}}
}

// hostAllowed matches host against exact names and path.Match globs such as
// "*.example.com". An empty list allows nothing.
func hostAllowed(allowed []string, host string) bool {
	for _, a := range allowed {
		if a == host {
			return true
		}
		if ok, err := path.Match(a, host); err == nil && ok {
			return true
		}
	}
	return false
}

// Instantiate adds both host modules to r. It is called once per runtime,
// before any plugin module is instantiated in it.
func Instantiate(ctx context.Context, r wazero.Runtime) error {
	for _, m := range []struct {
		name  string
		funcs []hostFunc
	}{{abi.ExtismModule, extismFuncs}, {abi.HostModule, airlockFuncs}} {
		b := r.NewHostModuleBuilder(m.name)
		for _, f := range m.funcs {
			b.NewFunctionBuilder().WithGoModuleFunction(f.fn, f.params, f.results).Export(f.name)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("instantiate host module %s: %w", m.name, err)
		}
	}
	return nil
}
