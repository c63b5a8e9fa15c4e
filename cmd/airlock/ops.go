package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// operational adds /healthz and, unless the config turns it off, /metrics to
// an HTTP listener.
func (s *session) operational(mux *http.ServeMux) {
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"status":       "ok",
			"interceptors": len(s.chain().Interceptors()),
			"plugins":      len(s.loader.Plugins()),
		})
	})
	if s.cfg.Metrics.On() {
		mux.Handle("/metrics", s.metrics.Handler())
	}
}

// serveHTTP serves mcp at /mcp on addr, with /healthz and /metrics, until
// ctx is done. what names the service in the log line that gives the URL;
// beforeShutdown, if set, runs first when ctx ends (to close sessions whose
// streams would hold the server open).
func (s *session) serveHTTP(ctx context.Context, addr, what string, mcp http.Handler, beforeShutdown func()) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp)
	s.operational(mux)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.logger.Info(what, "url", "http://"+ln.Addr().String()+"/mcp", "interceptors", len(s.chain().Interceptors()))
	go func() {
		<-ctx.Done()
		if beforeShutdown != nil {
			beforeShutdown()
		}
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
