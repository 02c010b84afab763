package temporalclient

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/floorbench/floorbench/internal/config"
)

// dialTimeout bounds connecting to Temporal.
const dialTimeout = 10 * time.Second

// quietLogger keeps the SDK's chatter at warnings and above on stderr.
func quietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

// Dial connects to Temporal as c says and checks the connection, so an
// unreachable server is one clear error at once.
func Dial(ctx context.Context, c config.Config) (client.Client, error) {
	opts := client.Options{HostPort: c.TemporalAddress, Namespace: c.Namespace, Logger: quietLogger()}
	if c.APIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(c.APIKey)
		opts.ConnectionOptions.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	} else if c.TLS {
		opts.ConnectionOptions.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	dialCtx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	cl, err := client.DialContext(dialCtx, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot reach Temporal at %s (namespace %s): %w", c.TemporalAddress, c.Namespace, err)
	}
	return cl, nil
}
