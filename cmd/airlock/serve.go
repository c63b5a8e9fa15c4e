package main

import (
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/host/server"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the interceptor protocol (interceptors/list, interceptor/invoke) on stdio or streamable HTTP",
		Flags: append(sourceFlags(), watchFlag,
			&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on `ADDR` (host:port) at /mcp instead of stdio"},
		),
		Action: func(c *cli.Context) error {
			ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			s, err := open(ctx, c, server.Check)
			if err != nil {
				return err
			}
			defer s.Close()
			srv, err := server.New(s.loader.Live(), server.Options{Version: version(), Logger: s.logger, Observer: s.metrics})
			if err != nil {
				return err
			}
			s.reloadOnChange(ctx, c)
			n := len(s.chain().Interceptors())
			addr := s.cfg.Listen.HTTP
			if addr == "" {
				s.logger.Info("serving the interceptor protocol on stdio", "interceptors", n)
				if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
					return err
				}
				return nil
			}
			return s.serveHTTP(ctx, addr, "serving the interceptor protocol", srv.HTTPHandler(), nil)
		},
	}
}
