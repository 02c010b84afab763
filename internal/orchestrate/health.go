package orchestrate

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// HealthHandler serves a worker's probes (the chart's liveness and
// readiness probes): /healthz answers while the process runs; /readyz
// answers 200 when ready returns nil within two seconds — the workers poll
// and Temporal answers — and 503 otherwise, so a GPU worker counts as ready
// only once it can take inference. The reason goes to log, not to the
// caller: it names internal addresses and the server's own errors.
func HealthHandler(ready func(context.Context) error, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			log.Warn("not ready", "error", err)
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	return mux
}
