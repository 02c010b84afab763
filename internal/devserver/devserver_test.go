package devserver

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/testenv"
)

// The dev server the quickstart starts runs with a minimal environment:
// the store's and Temporal's credentials floorbench was given stay in
// floorbench.
func TestDevServerDoesNotInheritSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("a real Temporal dev server: skipped with -short")
	}
	bin := testenv.Tool(t, "temporal", "temporal")
	t.Setenv("FLOORBENCH_S3_SECRET_KEY", "s3-secret-in-env")
	t.Setenv("FLOORBENCH_TEMPORAL_API_KEY", "api-key-in-env")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-in-env")
	srv, err := New(bin, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	environ, err := os.ReadFile("/proc/" + strconv.Itoa(srv.PID()) + "/environ")
	if err != nil {
		t.Skipf("cannot read the server's environment: %v", err)
	}
	env := strings.Split(string(environ), "\x00")
	if len(env) < 2 {
		t.Fatalf("the server got no environment at all: %q", environ)
	}
	for _, kv := range env {
		if strings.Contains(kv, "-in-env") || strings.HasPrefix(kv, "FLOORBENCH_") {
			t.Errorf("the dev server inherited %q", kv)
		}
	}
}
