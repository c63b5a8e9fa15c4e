package pdk

import (
	"strings"
	"testing"
)

func TestWalkStringsPaths(t *testing.T) {
	doc := `{"a":"x","b":[1,"y",{"c~/d":"z"}],"e":{"f":null,"g":true,"h":-1.5e3},"k\"q":"\u0041\n"}`
	var got []string
	if err := WalkStrings([]byte(doc), func(p Path, s string) { got = append(got, p.String()+"="+s) }); err != nil {
		t.Fatal(err)
	}
	want := []string{"/a=x", "/b/1=y", "/b/2/c~0~1d=z", "/k\"q=A\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// The root itself may be a string.
	if err := WalkStrings([]byte(` "s" `), func(p Path, s string) { got = []string{p.String(), s} }); err != nil || got[0] != "" || got[1] != "s" {
		t.Errorf("root string: %q %v", got, err)
	}
}

func TestWalkStringsRejectsBadJSON(t *testing.T) {
	for _, doc := range []string{``, `{`, `{"a"}`, `{"a":1,}x`, `["a"`, `{"a":"b`, `[1 2]`, `{} {}`} {
		if err := WalkStrings([]byte(doc), func(Path, string) {}); err == nil {
			t.Errorf("%q: no error", doc)
		}
	}
}

func TestRewriteStringsKeepsOtherBytes(t *testing.T) {
	doc := "{ \"keep\" : 1.50 ,\n \"t\": \"a secret\\u0021\", \"l\":[\"secret\", \"no\"] }"
	out, changed, err := RewriteStrings([]byte(doc), func(p Path, s string) (string, bool) {
		if !strings.Contains(s, "secret") {
			return "", false
		}
		return strings.ReplaceAll(s, "secret", "<x> & \"q\"\t\x01"), true
	})
	if err != nil || !changed {
		t.Fatal(err, changed)
	}
	want := "{ \"keep\" : 1.50 ,\n \"t\": \"a <x> & \\\"q\\\"\\t\\u0001!\", \"l\":[\"<x> & \\\"q\\\"\\t\\u0001\", \"no\"] }"
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	// Replacing with the same string is not a change.
	out, changed, err = RewriteStrings([]byte(doc), func(p Path, s string) (string, bool) { return s, true })
	if err != nil || changed || string(out) != doc {
		t.Errorf("identity rewrite: changed=%v err=%v", changed, err)
	}
}

func TestAppendJSONStringInvalidUTF8(t *testing.T) {
	if got := string(appendJSONString(nil, "a\xffb\u2028")); got != `"a\ufffdb\u2028"` {
		t.Errorf("got %s", got)
	}
}

func BenchmarkWalkStrings64K(b *testing.B) {
	doc := []byte(`{"content":[` + strings.Repeat(`{"type":"text","text":"lorem ipsum dolor sit amet, consectetur"},`, 1000) + `{"type":"text","text":"end"}]}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		_ = WalkStrings(doc, func(Path, string) {})
	}
}
