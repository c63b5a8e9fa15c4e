package main

import (
	"errors"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/config"
	"github.com/airlock-mcp/airlock/host/gateway"
	"github.com/airlock-mcp/airlock/host/server"
	"github.com/airlock-mcp/airlock/spec"
)

func gatewayCommand() *cli.Command {
	return &cli.Command{
		Name:      "gateway",
		Usage:     "stand in front of an MCP server as a transparent gateway that runs the interceptors on its traffic",
		ArgsUsage: "[-- BACKEND_COMMAND [ARGS...]]",
		Description: "The gateway looks like the backend to its clients (serverInfo, instructions, capabilities)\n" +
			"and forwards every message both ways; tools, prompts, resources, sampling, elicitation and\n" +
			"roots run the interceptor chain on the way. The backend is a command (after --, started once\n" +
			"per client session, speaking MCP on stdio) or a streamable HTTP URL (--backend-url).\n" +
			"Clients connect on stdio, or over streamable HTTP at http://ADDR/mcp with --http ADDR;\n" +
			"every client session gets a backend session of its own.",
		Flags: append(sourceFlags(), watchFlag,
			&cli.StringFlag{Name: "http", Usage: "serve clients over streamable HTTP on `ADDR` (host:port) at /mcp instead of stdio"},
			&cli.StringFlag{Name: "backend-url", Usage: "the backend is the streamable HTTP endpoint `URL` (instead of a command after --)"},
			&cli.BoolFlag{Name: "expose-interceptors", Usage: "also serve interceptors/list and interceptor/invoke to clients, and advertise the capability"},
			&cli.BoolFlag{Name: "expose-messages", Usage: "copy the blocking interceptor's reason and messages into block answers (default: name the interceptor and phase only)"},
			&cli.DurationFlag{Name: "chain-timeout", Usage: "bound each chain run to `DURATION` (default: the interceptors' own limits)"},
			&cli.StringFlag{Name: "principal-header", Usage: "with --http, take the caller's user id from the HTTP header `NAME` (set by a trusted proxy in front)"},
			&cli.StringFlag{Name: "server-name", Usage: "answer clients with this serverInfo name instead of the backend's"},
		),
		Action: runGateway,
	}
}

func runGateway(c *cli.Context) error {
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var check func(*chain.Chain) error
	if c.Bool("expose-interceptors") {
		check = server.Check
	}
	s, err := open(ctx, c, check)
	if err != nil {
		return err
	}
	defer s.Close()
	backend, err := gatewayBackend(c, s.cfg.Backend)
	if err != nil {
		return err
	}
	// The config file's gateway settings, each overridden by its flag.
	gc := s.cfg.Gateway
	if c.IsSet("expose-messages") {
		gc.ExposeMessages = c.Bool("expose-messages")
	}
	if c.IsSet("expose-interceptors") {
		gc.ExposeInterceptors = c.Bool("expose-interceptors")
	}
	if c.IsSet("chain-timeout") {
		gc.ChainTimeout = config.Duration(c.Duration("chain-timeout"))
	}
	if c.IsSet("principal-header") {
		gc.PrincipalHeader = c.String("principal-header")
	}
	if c.IsSet("server-name") {
		gc.ServerName = c.String("server-name")
	}
	opts := gateway.Options{
		Backend:            backend,
		Chains:             s.loader.Live(),
		ExposeMessages:     gc.ExposeMessages,
		ExposeInterceptors: gc.ExposeInterceptors,
		ChainTimeout:       time.Duration(gc.ChainTimeout),
		Logger:             s.logger,
	}
	if name := gc.ServerName; name != "" {
		opts.ServerInfo = &mcp.Implementation{Name: name, Version: version()}
	}
	if h := gc.PrincipalHeader; h != "" {
		opts.Principal = func(e *mcp.RequestExtra) *spec.Principal {
			if id := strings.TrimSpace(e.Header.Get(h)); id != "" {
				return &spec.Principal{Type: spec.PrincipalUser, ID: id}
			}
			return nil
		}
	}
	g, err := gateway.New(opts)
	if err != nil {
		return err
	}
	defer g.Close()
	s.reloadOnChange(ctx, c)
	n := len(s.chain().Interceptors())

	addr := s.cfg.Listen.HTTP
	if addr == "" {
		s.logger.Info("gateway serving on stdio", "interceptors", n)
		return g.Serve(ctx, &mcp.StdioTransport{})
	}
	// Sessions hold streams open: end them first, then the server.
	return s.serveHTTP(ctx, addr, "gateway serving", g.HTTPHandler(), func() { _ = g.Close() })
}

// gatewayBackend reads the backend from --backend-url or the words after --,
// else from the config file.
func gatewayBackend(c *cli.Context, fromFile *config.Backend) (gateway.Backend, error) {
	args := c.Args().Slice()
	url := c.String("backend-url")
	if url == "" && len(args) == 0 && fromFile != nil {
		url, args = fromFile.URL, fromFile.Command
	}
	switch {
	case url != "" && len(args) > 0:
		return nil, errors.New("name one backend: --backend-url URL or a command after --, not both")
	case url != "":
		return gateway.URL(url), nil
	case len(args) > 0:
		stderr := c.App.ErrWriter
		return gateway.Command(func(cmd *exec.Cmd) { cmd.Stderr = stderr }, args[0], args[1:]...), nil
	}
	return nil, errors.New("no backend: give its command after -- (airlock gateway --plugin p.wasm -- npx some-server), --backend-url URL, or backend: in the config file")
}
