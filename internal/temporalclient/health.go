package temporalclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// HealthHandler serves a worker's probes (the chart's liveness and
// readiness probes): /healthz answers while the process runs; /readyz
// answers 200 when ready returns nil within two seconds — the workers poll
// and Temporal answers — and 503 otherwise, so a GPU worker counts as ready
// only once it can take inference. The full reason goes to log, not to the
// caller: it names internal addresses and the server's own errors; the
// caller gets a NotReady's Reason ("not ready: waiting for Temporal").
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
			msg := "not ready"
			var nr *NotReady
			if errors.As(err, &nr) {
				msg += ": " + nr.Reason
			}
			http.Error(w, msg, http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	return mux
}

// NotReady is why a worker is not ready: Reason, which /readyz shows, and
// Err, which only the log shows.
type NotReady struct {
	Reason string
	Err    error
}

func (e *NotReady) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return e.Reason + ": " + e.Err.Error()
}

func (e *NotReady) Unwrap() error { return e.Err }
