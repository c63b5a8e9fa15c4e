package jsonscan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The scanner must accept exactly what encoding/json accepts.
var validCases = []struct {
	name, in string
}{
	{"empty", ``},
	{"space only", "  \n"},
	{"literals", `[true,false,null]`},
	{"bad literal", `tru`},
	{"literal with tail", `nullx`},
	{"numbers", `[0,-0,1.5,-1.5e3,1E+2,2e-7,123456789012345678901234567890]`},
	{"leading zero", `01`},
	{"bare minus", `-`},
	{"dot without digits", `1.`},
	{"exponent without digits", `1e+`},
	{"plus sign", `+1`},
	{"escapes", `"\" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"`},
	{"bad escape", `"\x"`},
	{"short unicode escape", `"\u12"`},
	{"bad hex", `"\u12G4"`},
	{"control character", "\"a\x01b\""},
	{"raw tab in string", "\"a\tb\""},
	{"invalid utf-8 is accepted", "\"\xff\xfe\""},
	{"lone surrogate escape is accepted", `"\ud800"`},
	{"unterminated", `"abc`},
	{"nested", `{"a":[{"b":{"c":[1,{"d":"e"}]}}],"f":{}}`},
	{"trailing comma in object", `{"a":1,}`},
	{"trailing comma in array", `[1,]`},
	{"missing colon", `{"a" 1}`},
	{"non-string key", `{1:2}`},
	{"mismatched close", `[1}`},
	{"two values", `{} {}`},
	{"unicode text", `{"ключ":"значение 🚀"}`},
	{"depth 10000", strings.Repeat("[", 10000) + strings.Repeat("]", 10000)},
	{"depth 10001", strings.Repeat("[", 10001) + strings.Repeat("]", 10001)},
	{"depth 10001 in an object", `{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`},
	{"depth 10000 in an object", `{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`},
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := Valid([]byte(c.in)), json.Valid([]byte(c.in)); got != want {
				t.Errorf("Valid(%.60q) = %v, encoding/json says %v", c.in, got, want)
			}
			// Members validates the same way (objects only).
			err := Members([]byte(c.in), func(_, _ []byte) error { return nil })
			if json.Valid([]byte(c.in)) != (err == nil || errors.Is(err, ErrNotObject)) {
				t.Errorf("Members(%.60q) = %v, encoding/json valid = %v", c.in, err, json.Valid([]byte(c.in)))
			}
		})
	}
}

func TestUnquoteAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`""`, `"plain"`, `"é and 🚀"`, `"\"q\" \\ \/ \b\f\n\r\t"`, `"\u0041\u00e9\u4e2d"`,
		`"\uD83D\uDE00"`, `"\uD83D"`, `"\uDE00\uD83D"`, `"\uD83D\u0041"`, `"\uD83Dx"`, `"\uD83D\uD83D\uDE00"`,
		"\"bad \xff utf-8\"", "\"cut \xe2\x82\"", `"\u0000"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := Unquote([]byte(in)); got != want {
			t.Errorf("Unquote(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestKeyFoldsLikeEncodingJSON(t *testing.T) {
	type s struct {
		Name string `json:"name"`
	}
	for _, key := range []string{`"name"`, `"NAME"`, `"Name"`, `"n\u0061me"`, `"nAmE"`, `"names"`, `"nam"`, `"ſ"`, `""`} {
		var v s
		_ = json.Unmarshal([]byte(`{`+key+`:"x"}`), &v)
		if got, want := Key([]byte(key), "name"), v.Name == "x"; got != want {
			t.Errorf("Key(%s, name) = %v, encoding/json matches: %v", key, got, want)
		}
	}
	// Kelvin sign and long s fold to k and s, as in encoding/json.
	type k struct {
		Kind string `json:"ks"`
	}
	var v k
	_ = json.Unmarshal([]byte(`{"\u212aſ":"x"}`), &v)
	if got := Key([]byte(`"\u212aſ"`), "ks"); got != (v.Kind == "x") {
		t.Errorf("Key(Kelvin long-s) = %v, encoding/json %v", got, v.Kind == "x")
	}
}

func TestSkipTrustedDelimitsValidJSON(t *testing.T) {
	for _, c := range validCases {
		b := []byte(c.in)
		start, end, err := Value(b)
		if err != nil {
			continue
		}
		if got, err := SkipTrusted(b, start); err != nil || got != end {
			t.Errorf("%s: SkipTrusted = %d, %v; want %d", c.name, got, err, end)
		}
	}
	for _, in := range []string{`"a\\"`, `"a\"b"`, `["\\\"",{"k":"]"}]`, `12`} {
		b := []byte(in)
		if got, _ := SkipTrusted(b, 0); got != len(b) {
			t.Errorf("SkipTrusted(%s) = %d, want %d", in, got, len(b))
		}
	}
}

func TestMembers(t *testing.T) {
	var got []string
	err := Members([]byte(` {"a" : 1 , "b":{"c":[2]}, "a":"x\"y"} `), func(k, v []byte) error {
		got = append(got, string(k)+"="+string(v))
		return nil
	})
	if err != nil || strings.Join(got, "|") != `"a"=1|"b"={"c":[2]}|"a"="x\"y"` {
		t.Errorf("got %q, %v", got, err)
	}
	if err := Members([]byte(`[1]`), func(_, _ []byte) error { return nil }); !errors.Is(err, ErrNotObject) {
		t.Errorf("array: %v", err)
	}
	stop := errors.New("stop")
	if err := Members([]byte(`{"a":1,"b":2}`), func(_, _ []byte) error { return stop }); err != stop {
		t.Errorf("fn error: %v", err)
	}
	// A syntax error after the members is still an error.
	if err := Members([]byte(`{"a":1} x`), func(_, _ []byte) error { return nil }); err == nil {
		t.Error("trailing data accepted")
	}
}

func TestMembersLast(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":1,"payload":{"x":[1,"}"]}}`, `"a"=1|"payload"={"x":[1,"}"]}`},
		{"{\"Payload\" :\t[1] \n} \r\n", `"Payload"=[1]`},
		{`{"a":"x","b":{}}`, `"a"="x"|"b"={}`},
		// Not scanned: a value that runs past a later member is taken whole.
		{`{"payload":1,"a":2}`, `"payload"=1,"a":2`},
		{`{"payload": }`, `error`},
		{`{"payload":1`, `error`},
		{`{"payload":}`, `error`},
	} {
		var got []string
		err := MembersLast([]byte(c.in), "payload", func(k, v []byte) error {
			got = append(got, string(k)+"="+string(v))
			return nil
		})
		if s := strings.Join(got, "|"); err != nil && c.want != "error" || err == nil && s != c.want {
			t.Errorf("%q: got %q, %v; want %s", c.in, s, err, c.want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		if len(c.in) < 200 {
			f.Add([]byte(c.in))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, want := Valid(b), json.Valid(b)
		if got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json %v", b, got, want)
		}
		if !want {
			return
		}
		start, end, err := Value(b)
		if err != nil {
			t.Fatal(err)
		}
		// On valid JSON the trusted skip finds the same end.
		if te, err := SkipTrusted(b, start); err != nil || te != end {
			t.Fatalf("SkipTrusted(%q) = %d, %v; want %d", b, te, err, end)
		}
		if b[start] == '"' {
			var s string
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if u := Unquote(b[start:end]); u != s {
				t.Fatalf("Unquote(%q) = %q, encoding/json %q", b, u, s)
			}
		}
	})
}
