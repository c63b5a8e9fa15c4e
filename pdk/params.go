package pdk

// Hand-written decoding of the interceptor/invoke params: the PDK's hot
// path runs inside WebAssembly, where encoding/json's reflection costs
// several times the rest of a call. The decoder follows encoding/json's
// rules for spec.InvokeParams (keys matched case-insensitively, the last of
// duplicate keys wins, null leaves a field alone, the whole input is
// validated); a fuzz test checks it against encoding/json.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
	"github.com/airlock-mcp/airlock/spec"
)

// invocation is the decoded params. The raw members are slices of the
// input, not copies.
type invocation struct {
	name, event string
	phase       Phase
	payload     json.RawMessage
	config      json.RawMessage
	meta        json.RawMessage
	timeoutMs   int64
	// ctx are the raw context objects in order (a duplicate key decodes
	// over the previous one, as encoding/json does); nil when absent or
	// null.
	ctx [][]byte
	// ctx1 is the one context object of the fast path (decodeFast), which
	// leaves ctx nil: a slice of one would be an allocation per call.
	ctx1 []byte
}

// decodeInvoke decodes input as interceptor/invoke params written by a host
// of the direct ABI.
//
// Such a host writes the payload as the input's last member (abi/README.md
// section 2.4), so the payload is found without being read: everything from
// its colon to the closing brace. The other raw members (config, context,
// _meta) are only delimited, not validated: the host checked them. Either
// way a 64 KiB payload costs nothing here, where reading it would cost more
// inside WebAssembly than the rest of the call. The envelope itself, and
// every member the PDK decodes, is validated.
func decodeInvoke(input []byte) (invocation, error) { return decodeInvokeMode(input, hostOrder) }

// decodeMode is how much decodeInvokeMode trusts its input.
type decodeMode int

const (
	// hostOrder trusts the direct ABI's guarantees: raw members are valid
	// JSON and the payload is the last member.
	hostOrder decodeMode = iota
	// trusted delimits raw members without validating them.
	trusted
	// strict validates everything: it accepts exactly what encoding/json
	// accepts.
	strict
)

// decodeInvokeMode is decodeInvoke with the given trust in the input.
func decodeInvokeMode(input []byte, mode decodeMode) (inv invocation, err error) {
	iterate := func(b []byte, fn func(key, val []byte) error) error { return jsonscan.MembersLast(b, "payload", fn) }
	switch mode {
	case trusted:
		iterate = jsonscan.MembersTrusted
	case strict:
		iterate = jsonscan.Members
	}
	err = iterate(input, func(key, val []byte) error {
		switch {
		case jsonscan.Key(key, "name"):
			return setString(&inv.name, val, "name")
		case jsonscan.Key(key, "event"):
			return setString(&inv.event, val, "event")
		case jsonscan.Key(key, "phase"):
			var s string
			if err := setString(&s, val, "phase"); err != nil {
				return err
			}
			if !isNull(val) {
				inv.phase = Phase(s)
			}
		case jsonscan.Key(key, "payload"):
			inv.payload = val
		case jsonscan.Key(key, "config"):
			inv.config = val
		case jsonscan.Key(key, "_meta"):
			inv.meta = val
		case jsonscan.Key(key, "timeoutMs"):
			if isNull(val) {
				return nil
			}
			if val[0] != '-' && (val[0] < '0' || val[0] > '9') {
				return fmt.Errorf("timeoutMs: %s is not a number", kind(val))
			}
			if end, err := jsonscan.Skip(val, 0); err != nil || end != len(val) {
				return fmt.Errorf("timeoutMs: %s is not a number", val)
			}
			n, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil {
				return fmt.Errorf("timeoutMs: %s is not an int64", val)
			}
			inv.timeoutMs = n
		case jsonscan.Key(key, "context"):
			switch {
			case isNull(val):
				inv.ctx = nil
			case val[0] == '{':
				// Validated when decoded (on first use).
				inv.ctx = append(inv.ctx, val)
			default:
				return fmt.Errorf("context: %s is not an object", kind(val))
			}
		}
		return nil
	})
	if errors.Is(err, jsonscan.ErrNotObject) {
		if start, end, err := jsonscan.Value(input); err == nil && isNull(input[start:end]) {
			// encoding/json leaves the struct alone for a null.
			return invocation{}, nil
		}
		return invocation{}, errors.New("not a JSON object")
	}
	if err != nil {
		return invocation{}, err
	}
	return inv, nil
}

// setString sets *dst to the string val; null leaves it alone.
func setString(dst *string, val []byte, field string) error {
	switch {
	case val[0] == '"':
		if end, _, err := jsonscan.SkipString(val, 0); err != nil || end != len(val) {
			return fmt.Errorf("%s: invalid string", field)
		}
		*dst = jsonscan.Unquote(val)
	case isNull(val):
	default:
		return fmt.Errorf("%s: %s is not a string", field, kind(val))
	}
	return nil
}

// isNull reports whether the value val is null.
func isNull(val []byte) bool { return string(val) == "null" }

func kind(val []byte) string {
	switch val[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// decodeContext decodes the raw context objects, in order, into one Context
// as encoding/json would decode duplicate members over each other.
func decodeContext(raws [][]byte) (*spec.Context, error) {
	if raws == nil {
		return nil, nil
	}
	c := new(spec.Context)
	for _, raw := range raws {
		err := jsonscan.Members(raw, func(key, val []byte) error {
			switch {
			case jsonscan.Key(key, "principal"):
				switch {
				case isNull(val):
					c.Principal = nil
				case val[0] == '{':
					if c.Principal == nil {
						c.Principal = new(spec.Principal)
					}
					return decodePrincipal(c.Principal, val)
				default:
					return fmt.Errorf("principal: %s is not an object", kind(val))
				}
			case jsonscan.Key(key, "traceId"):
				return setString(&c.TraceID, val, "traceId")
			case jsonscan.Key(key, "spanId"):
				return setString(&c.SpanID, val, "spanId")
			case jsonscan.Key(key, "timestamp"):
				return setString(&c.Timestamp, val, "timestamp")
			case jsonscan.Key(key, "sessionId"):
				return setString(&c.SessionID, val, "sessionId")
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("context: %w", err)
		}
	}
	return c, nil
}

func decodePrincipal(p *spec.Principal, raw []byte) error {
	return jsonscan.Members(raw, func(key, val []byte) error {
		switch {
		case jsonscan.Key(key, "type"):
			var s string
			if err := setString(&s, val, "type"); err != nil {
				return err
			}
			if !isNull(val) {
				p.Type = spec.PrincipalType(s)
			}
		case jsonscan.Key(key, "id"):
			return setString(&p.ID, val, "id")
		case jsonscan.Key(key, "claims"):
			// Rare and free-form: encoding/json decodes it (into the
			// existing map, as it would).
			return json.Unmarshal(val, &p.Claims)
		}
		return nil
	})
}

// params builds the spec form of the invocation.
func (inv *invocation) params() (*spec.InvokeParams, error) {
	raws := inv.ctx
	if inv.ctx1 != nil {
		raws = [][]byte{inv.ctx1}
	}
	ctx, err := decodeContext(raws)
	if err != nil {
		return nil, err
	}
	return &spec.InvokeParams{Name: inv.name, Event: inv.event, Phase: inv.phase, Payload: inv.payload,
		Config: inv.config, TimeoutMs: inv.timeoutMs, Context: ctx, Meta: inv.meta}, nil
}
