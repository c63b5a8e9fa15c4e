package main

// This file is identical in testdata/extism and testdata/direct (a test
// checks it): the "redact-fast" interceptor does what "redact" does, but
// scans the input by hand instead of going through encoding/json's
// reflection, which in a wasm guest costs far more than any calling
// convention. The benchmark uses it so that it measures the host and the
// ABI rather than the guest's JSON library.

import (
	"bytes"
	"errors"
)

var fastOut []byte

// redactFast returns the mutation result for the invoke params in, in a
// buffer reused by the next call; ok is false when the call is for another
// interceptor.
func redactFast(in []byte) (_ []byte, ok bool, _ error) {
	name, phase, payload, err := scanParams(in)
	if err != nil {
		return nil, true, err
	}
	if string(name) != `"redact-fast"` {
		return nil, false, nil
	}
	out := fastOut[:0]
	out = append(out, `{"interceptor":`...)
	out = append(out, name...)
	out = append(out, `,"type":"mutation","phase":`...)
	out = append(out, phase...)
	if bytes.Contains(payload, []byte("secret")) {
		out = append(out, `,"modified":true,"payload":`...)
		out = append(out, bytes.ReplaceAll(payload, []byte("secret"), []byte("[REDACTED]"))...)
	} else {
		out = append(out, `,"modified":false,"payload":`...)
		out = append(out, payload...)
	}
	out = append(out, '}')
	fastOut = out
	return out, true, nil
}

var errSyntax = errors.New("invoke params: malformed JSON")

// scanParams returns the raw JSON of the name, phase and payload members of
// the top-level object in.
func scanParams(in []byte) (name, phase, payload []byte, err error) {
	i := skipSpace(in, 0)
	if i >= len(in) || in[i] != '{' {
		return nil, nil, nil, errSyntax
	}
	i++
	for {
		i = skipSpace(in, i)
		if i < len(in) && in[i] == '}' {
			return name, phase, payload, nil
		}
		ks := i
		ke, ok := skipValue(in, i)
		if !ok || in[ks] != '"' {
			return nil, nil, nil, errSyntax
		}
		i = skipSpace(in, ke)
		if i >= len(in) || in[i] != ':' {
			return nil, nil, nil, errSyntax
		}
		vs := skipSpace(in, i+1)
		ve, ok := skipValue(in, vs)
		if !ok {
			return nil, nil, nil, errSyntax
		}
		switch string(in[ks:ke]) {
		case `"name"`:
			name = in[vs:ve]
		case `"phase"`:
			phase = in[vs:ve]
		case `"payload"`:
			payload = in[vs:ve]
		}
		i = skipSpace(in, ve)
		if i < len(in) && in[i] == ',' {
			i++
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at i.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				var ok bool
				if i, ok = skipString(b, i); !ok {
					return i, false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	default:
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\r' {
			i++
		}
		return i, true
	}
}

func skipString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return i, false
}
