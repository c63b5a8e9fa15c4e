package pdk

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/airlock-mcp/airlock/pdk/internal/hostapi"
	"github.com/airlock-mcp/airlock/spec"
)

func init() {
	hostapi.Invoke = dispatch
	hostapi.Describe = describe
}

// dispatch runs one invocation: decode the params, run the handler, encode
// its result echoing the call. An error is the failure's reason.
func dispatch(h hostapi.Host, input []byte) ([]byte, error) {
	return dispatchInto(nil, h, input)
}

// dispatchInto is dispatch appending the output to dst. The call keeps
// slices of input (the raw payload, config and _meta) only while it runs.
func dispatchInto(dst []byte, h hostapi.Host, input []byte) (out []byte, err error) {
	inv, e, ok := decodeFast(input)
	if !ok {
		if inv, err = decodeInvoke(input); err != nil {
			return nil, fmt.Errorf("pdk: the input is not interceptor/invoke params: %w", err)
		}
		if e = byName[inv.name]; e == nil {
			return nil, fmt.Errorf("pdk: this plugin has no interceptor named %q", inv.name)
		}
	}
	c := &Call{inv: inv, typ: e.desc.Type, host: h}
	res := spec.Result{Interceptor: inv.name, Type: e.desc.Type, Phase: inv.phase}
	if err := run(c, e, &res); err != nil {
		return nil, err
	}
	if inv.phase == Request || inv.phase == Response {
		out, err = appendResultBody(append(dst, e.head(inv.phase)...), &res)
	} else {
		out, err = appendResult(dst, &res)
	}
	if err != nil {
		return nil, fmt.Errorf("interceptor %q: %w", inv.name, err)
	}
	return out, nil
}

// run calls the handler, turning a panic into an error.
func run(c *Call, e *entry, res *spec.Result) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(failure); ok {
				err = errors.New(f.msg)
				return
			}
			err = fmt.Errorf("interceptor %q panicked: %v%s", c.inv.name, r, panicSite())
		}
	}()
	switch {
	case e.val != nil:
		err = e.val(c).fill(res)
	case e.mut != nil:
		err = e.mut(c).fill(res)
	default:
		err = e.sink(c).fill(res)
	}
	if err != nil {
		err = fmt.Errorf("interceptor %q: %w", c.inv.name, err)
	}
	return err
}

// panicSite returns " (at file.go:12)" for the innermost frame outside the
// runtime and this package, called from a deferred recover.
func panicSite() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") &&
			!strings.HasPrefix(f.Function, "github.com/airlock-mcp/airlock/pdk.") {
			file := f.File
			if i := strings.LastIndexByte(file, '/'); i >= 0 {
				file = file[i+1:]
			}
			return fmt.Sprintf(" (at %s:%d in %s)", file, f.Line, shortFunc(f.Function))
		}
		if !more {
			return ""
		}
	}
}

func shortFunc(fn string) string {
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		fn = fn[i+1:]
	}
	return fn
}
