package pdk

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/airlock-mcp/airlock/spec"
)

type fakeHost struct {
	config map[string]string
}

func (fakeHost) Log(int32, string)                {}
func (fakeHost) VarGet(string) ([]byte, bool)     { return nil, false }
func (fakeHost) VarSet(string, []byte) bool       { return true }
func (fakeHost) VarDelete(string)                 {}
func (h fakeHost) Config(k string) (string, bool) { v, ok := h.config[k]; return v, ok }
func call(payload string, cfg string, plugin map[string]string) *Call {
	p := &spec.InvokeParams{Name: "t", Event: "tools/call", Phase: Request, Payload: json.RawMessage(payload)}
	if cfg != "" {
		p.Config = json.RawMessage(cfg)
	}
	in, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	inv, err := decodeInvoke(in)
	if err != nil {
		panic(err)
	}
	return &Call{inv: inv, typ: spec.TypeMutation, host: fakeHost{plugin}}
}

func TestVerdictValidAndSeverity(t *testing.T) {
	cases := []struct {
		name  string
		build func(v *Verdict)
		valid bool
		sev   spec.Severity
	}{
		{"zero allows", func(*Verdict) {}, true, ""},
		{"info stays valid", func(v *Verdict) { v.Info("/a", "fyi") }, true, SeverityInfo},
		{"warn is invalid, not blocking", func(v *Verdict) { v.Info("", "x"); v.Warn("/a", "hm") }, false, SeverityWarn},
		{"error wins", func(v *Verdict) { v.Warn("", "x"); v.Error("/b", "no"); v.Info("", "y") }, false, SeverityError},
		{"unknown severity ranks as error", func(v *Verdict) { v.Warn("", "x"); v.Add("fatal", "", "z") }, false, "fatal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var v Verdict
			c.build(&v)
			r := spec.Result{Type: spec.TypeValidation}
			if err := v.fill(&r); err != nil {
				t.Fatal(err)
			}
			if r.Valid != c.valid || r.Severity != c.sev {
				t.Errorf("valid=%v severity=%q, want %v %q", r.Valid, r.Severity, c.valid, c.sev)
			}
			if (r.Blocks()) != (c.sev == SeverityError || c.sev == "fatal") {
				t.Errorf("Blocks() = %v for severity %q", r.Blocks(), c.sev)
			}
		})
	}
	if v := DenyAt("/x", "bad %d", 7); v.Valid() || v.Messages()[0].Path != "/x" || v.Messages()[0].Message != "bad 7" {
		t.Errorf("DenyAt = %+v", v.Messages())
	}
}

func TestReplaceIsHonest(t *testing.T) {
	c := call(`{"name":"a", "arguments":{"x":1,"y":[1,2]}}`, "", nil)
	cases := []struct {
		name     string
		v        any
		modified bool
	}{
		{"same bytes", json.RawMessage(`{"name":"a", "arguments":{"x":1,"y":[1,2]}}`), false},
		{"same value, other order", map[string]any{"arguments": map[string]any{"y": []int{1, 2}, "x": 1}, "name": "a"}, false},
		{"number form differs only", json.RawMessage(`{"name":"a","arguments":{"x":1,"y":[1,2]}}`), false},
		{"changed", map[string]any{"name": "b"}, true},
	}
	for _, tc := range cases {
		m := c.Replace(tc.v)
		if m.Modified() != tc.modified {
			t.Errorf("%s: modified = %v", tc.name, m.Modified())
		}
		if !m.Modified() && m.Payload() != nil {
			t.Errorf("%s: an unchanged mutation carries a payload", tc.name)
		}
	}
}

func TestReplaceInvalidJSONFails(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no failure")
		} else if f, ok := r.(failure); !ok || f.msg != `interceptor "t" failed: the replacement payload is not valid JSON` {
			t.Fatalf("recovered %v", r)
		}
	}()
	call(`{}`, "", nil).Replace(json.RawMessage(`{"a":`))
}

func TestExtraRoundTrip(t *testing.T) {
	in := `{"content":[{"type":"text","text":"hi","x-a":[1]}],"isError":true,"vendor":{"k":"v"}}`
	var r ToolResult
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if string(r.Extra["vendor"]) != `{"k":"v"}` || string(r.Content[0].Extra["x-a"]) != `[1]` {
		t.Fatalf("extra not kept: %+v", r)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !spec.JSONEqual(out, json.RawMessage(in)) {
		t.Errorf("round trip changed the payload:\n%s\n%s", out, in)
	}
}

func TestConfigLayers(t *testing.T) {
	type cfg struct {
		Allow []string `json:"allow"`
		Level string   `json:"level"`
		Max   int      `json:"max"`
		Skip  string   `json:"-"`
		Plain bool
	}
	plugin := map[string]string{"allow": `["a","b"]`, "level": "warn", "max": "7", "Plain": "true", "-": "x"}
	var c cfg
	c.Skip = "keep"
	if err := call(`{}`, `{"max":9}`, plugin).Config(&c); err != nil {
		t.Fatal(err)
	}
	if len(c.Allow) != 2 || c.Level != "warn" || c.Max != 9 || !c.Plain || c.Skip != "keep" {
		t.Errorf("config = %+v", c)
	}
	err := call(`{}`, "", map[string]string{"max": "lots"}).Config(&c)
	if err == nil || err.Error() != `pdk: plugin config "max": invalid character 'l' looking for beginning of value` {
		t.Errorf("bad plugin value: %v", err)
	}
	if err := call(`{}`, "", nil).Config(c); err == nil {
		t.Error("a non-pointer was accepted")
	}
}

// fixedHost is a host whose configuration is fixed, like the real one; it
// counts the lookups.
type fixedHost struct {
	fakeHost
	lookups *int
}

func (fixedHost) FixedConfig() {}

func (h fixedHost) Config(k string) (string, bool) { *h.lookups++; return h.fakeHost.Config(k) }

func TestConfigOfAFixedHostIsReadOnce(t *testing.T) {
	type cfg struct {
		Allow []string `json:"allow"`
		Level string   `json:"level"`
		Max   int      `json:"max"`
	}
	fixedConfigFields.Clear() // as in a new plugin instance (and for -count)
	n := 0
	h := fixedHost{fakeHost{map[string]string{"allow": `["a"]`, "level": "warn"}}, &n}
	for i := range 3 {
		c := call(`{}`, `{"max":9}`, nil)
		c.host = h
		got := cfg{Max: 1, Level: "info"}
		if err := c.Config(&got); err != nil {
			t.Fatal(err)
		}
		if len(got.Allow) != 1 || got.Allow[0] != "a" || got.Level != "warn" || got.Max != 9 {
			t.Fatalf("call %d: config = %+v", i, got)
		}
		// Each call decodes its own values: changing one call's slice
		// changes nothing for the next.
		got.Allow[0] = "changed"
	}
	if n != 3 {
		t.Errorf("%d config lookups for three calls; want 3 (one per field, once)", n)
	}
}

func TestInfoTakesRawJSONAsIs(t *testing.T) {
	r := Recorded(nil).WithInfo(json.RawMessage(`{"a": [1, 2]}`))
	if string(r.info) != `{"a": [1, 2]}` || r.err != nil {
		t.Errorf("info %s, %v", r.info, r.err)
	}
	if r := Recorded(nil).WithInfo(json.RawMessage(`{"a":`)); r.err == nil {
		t.Error("invalid raw info accepted")
	}
	if r := Recorded(nil).WithInfo(json.RawMessage(nil)); string(r.info) != "null" || r.err != nil {
		t.Errorf("nil raw info: %s, %v", r.info, r.err)
	}
}

func TestRegistrationErrorsFailDescribe(t *testing.T) {
	saveE, saveB, saveR := entries, byName, regErrs
	t.Cleanup(func() { entries, byName, regErrs = saveE, saveB, saveR })
	entries, byName, regErrs = nil, map[string]*entry{}, nil

	if _, err := describe(); err == nil {
		t.Error("an empty plugin described itself")
	}
	Validator(Descriptor{Name: "ok", Events: []string{"tools/call"}, Phase: Both}, func(*Call) Verdict { return Allow() })
	Validator(Descriptor{Name: "ok", Events: []string{"tools/call"}, Phase: Request}, func(*Call) Verdict { return Allow() })
	Mutator(Descriptor{Name: "bad-event", Events: []string{"tools"}, Phase: Request}, func(*Call) Mutation { return Unchanged() })
	Sink(Descriptor{Name: "nil", Events: []string{"*"}, Phase: Request}, nil)
	_, err := describe()
	for _, want := range []string{`interceptor "ok" is registered twice`, `interceptor "bad-event": hooks[0].events[0]`, `interceptor "nil": the handler is nil`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("describe error %v lacks %q", err, want)
		}
	}
	descs, _ := Registered()
	if len(descs) != 1 || len(descs[0].Hooks) != 2 {
		t.Errorf("registered %+v; want one with both expanded", descs)
	}
}

func TestPayloadMember(t *testing.T) {
	c := call(`{"a":1,"uri":"x","A":[2, 3],"isError":true}`, "", nil)
	for name, want := range map[string]string{"a": `[2,3]`, "uri": `"x"`, "isError": "true", "none": ""} {
		if got := string(c.PayloadMember(name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got := call(`[1]`, "", nil).PayloadMember("a"); got != nil {
		t.Errorf("member of an array: %q", got)
	}
}
