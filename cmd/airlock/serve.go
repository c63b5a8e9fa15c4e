package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/server"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the interceptor protocol (interceptors/list, interceptor/invoke) on stdio or streamable HTTP",
		Flags: append(sourceFlags(),
			&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on `ADDR` (host:port) at /mcp instead of stdio"},
		),
		Action: func(c *cli.Context) error {
			logger, err := newLogger(c)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			l, err := loadSources(ctx, c, logger)
			if err != nil {
				return err
			}
			defer l.Close()
			s, err := server.New(chain.Static(l.chain), server.Options{Version: version(), Logger: logger})
			if err != nil {
				return err
			}
			addr := c.String("http")
			if addr == "" {
				logger.Info("serving the interceptor protocol on stdio", "interceptors", len(l.chain.Interceptors()))
				if err := s.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
					return err
				}
				return nil
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("--http %s: %w", addr, err)
			}
			mux := http.NewServeMux()
			mux.Handle("/mcp", s.HTTPHandler())
			hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
			logger.Info("serving the interceptor protocol", "url", "http://"+ln.Addr().String()+"/mcp",
				"interceptors", len(l.chain.Interceptors()))
			go func() {
				<-ctx.Done()
				shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = hs.Shutdown(shutdown)
			}()
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
}
