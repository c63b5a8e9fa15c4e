package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/internal/wire"
	"github.com/airlock-mcp/airlock/spec"
)

// Host is a connected remote interceptor host. It is safe for concurrent
// use; Close ends the session (and the subprocess of a command).
type Host struct {
	name string
	cs   *mcp.ClientSession
}

// Command returns a transport that starts name with args and speaks MCP over
// its stdin and stdout. Set the returned transport's Command.Stderr to see
// the host's log.
func Command(name string, args ...string) *mcp.CommandTransport {
	return &mcp.CommandTransport{Command: exec.Command(name, args...)}
}

// URL returns a streamable HTTP transport to an MCP endpoint.
func URL(endpoint string) mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: endpoint}
}

// Dial connects to a remote interceptor host. name labels it in errors
// ("remote host NAME: ...").
func Dial(ctx context.Context, name string, t mcp.Transport) (*Host, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "airlock", Version: "devel"}, nil)
	if err := mcp.AddSendingCustomMethod[*wire.Params, *wire.ListResult](c, spec.MethodList); err != nil {
		return nil, err
	}
	if err := mcp.AddSendingCustomMethod[*wire.Params, *wire.InvokeResult](c, spec.MethodInvoke); err != nil {
		return nil, err
	}
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("remote host %s: connecting: %w", name, err)
	}
	return &Host{name: name, cs: cs}, nil
}

// Name is the label given to Dial.
func (h *Host) Name() string { return h.name }

// Capability returns what the host advertised under the interceptors
// extension key, and whether it advertised it at all. Hosts need not
// advertise to be used: the protocol's methods are what count.
func (h *Host) Capability() (spec.Capability, bool) {
	var c spec.Capability
	res := h.cs.InitializeResult()
	if res == nil || res.Capabilities == nil {
		return c, false
	}
	v, ok := res.Capabilities.Extensions[spec.CapabilityKey]
	if !ok {
		return c, false
	}
	b, err := json.Marshal(v)
	if err != nil || json.Unmarshal(b, &c) != nil {
		return c, false
	}
	return c, true
}

// Close ends the session.
func (h *Host) Close() error { return h.cs.Close() }

// maxPages bounds pagination so that a host that keeps returning cursors
// cannot hold discovery forever.
const maxPages = 1000

// Interceptors lists every interceptor of the host, following nextCursor.
func (h *Host) Interceptors(ctx context.Context) ([]spec.Interceptor, error) {
	var all []spec.Interceptor
	cursor := ""
	for range maxPages {
		p, err := wire.NewParams(spec.ListParams{Cursor: cursor})
		if err != nil {
			return nil, err
		}
		res, err := mcp.CallCustomMethod[*wire.Params, *wire.ListResult](ctx, h.cs, spec.MethodList, p)
		if err != nil {
			return nil, fmt.Errorf("remote host %s: %s: %w", h.name, spec.MethodList, specError(err))
		}
		all = append(all, res.Result.Interceptors...)
		if res.Result.NextCursor == "" {
			return all, nil
		}
		cursor = res.Result.NextCursor
	}
	return nil, fmt.Errorf("remote host %s: %s returned more than %d pages", h.name, spec.MethodList, maxPages)
}

// Invoke calls interceptor/invoke on the host. JSON-RPC errors come back as
// *spec.Error with the host's code and data.
func (h *Host) Invoke(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
	params, err := wire.NewParams(p)
	if err != nil {
		return nil, err
	}
	res, err := mcp.CallCustomMethod[*wire.Params, *wire.InvokeResult](ctx, h.cs, spec.MethodInvoke, params)
	if err != nil {
		return nil, specError(err)
	}
	return &res.Result, nil
}

// Call sends an interceptor-protocol method (interceptors/list or
// interceptor/invoke) with arbitrary params and returns the raw result. It is
// for tools and tests that need to send what the typed methods would not.
func (h *Host) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := wire.NewParams(params)
	if err != nil {
		return nil, err
	}
	var out any
	switch method {
	case spec.MethodList:
		out, err = mcp.CallCustomMethod[*wire.Params, *wire.ListResult](ctx, h.cs, method, p)
	case spec.MethodInvoke:
		out, err = mcp.CallCustomMethod[*wire.Params, *wire.InvokeResult](ctx, h.cs, method, p)
	default:
		return nil, fmt.Errorf("remote host %s: %q is not an interceptor-protocol method", h.name, method)
	}
	if err != nil {
		return nil, specError(err)
	}
	return json.Marshal(out)
}

// specError returns the JSON-RPC error inside err as a *spec.Error, or err.
func specError(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		se := &spec.Error{Code: we.Code, Message: we.Message}
		if len(we.Data) > 0 {
			se.Data = json.RawMessage(we.Data)
		}
		return se
	}
	return err
}
