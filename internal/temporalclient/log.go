package orchestrate

import (
	"log/slog"
	"os"
	"time"

	"go.temporal.io/sdk/log"
)

// dialTimeout bounds connecting to Temporal.
const dialTimeout = 10 * time.Second

// quietLogger keeps the SDK's chatter at warnings and above on stderr.
func quietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}
