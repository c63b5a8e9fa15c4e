package main

import (
	"encoding/json"
	"net/http"
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
