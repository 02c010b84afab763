package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/store/s3"
	"github.com/floorbench/floorbench/internal/testenv"
)

func TestCheckKey(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"corpora/abc/c1/speaker_1.wav", "bundles/x-1.2/manifest.json"} {
		if err := store.CheckKey(k); err != nil {
			t.Errorf("%q: %v", k, err)
		}
	}
	for _, k := range []string{"", "/etc/passwd", "a/../b", "a//b", "a/./b", "..", "a/b/", "a\\b", "a/b c", ".hidden/x", "a/..b"} {
		if err := store.CheckKey(k); err == nil {
			t.Errorf("%q must be rejected", k)
		}
	}
}

func TestSafeName(t *testing.T) {
	t.Parallel()
	cases := map[string]string{"my system": "my-system", "../../etc/passwd": "etc-passwd", "...": "_", "ok_name-1.2": "ok_name-1.2", "a..b": "a.b", "": "_"}
	for in, want := range cases {
		got := store.SafeName(in)
		if got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
		if err := store.CheckKey("x/" + got); err != nil {
			t.Errorf("SafeName(%q) gives an invalid segment: %v", in, err)
		}
	}
}

func FuzzSafeName(f *testing.F) {
	f.Add("../a b/..")
	f.Fuzz(func(t *testing.T, name string) {
		if err := store.CheckKey(store.SafeName(name)); err != nil {
			t.Fatalf("SafeName(%q) = %q: %v", name, store.SafeName(name), err)
		}
	})
}

// exercise runs the Store contract against s.
func exercise(t *testing.T, s store.Store) {
	ctx := context.Background()
	if err := store.PutBytes(ctx, s, "corpora/h1/c1/events.json", []byte(`{"a": 1}`)); err != nil {
		t.Fatal(err)
	}
	if err := store.PutBytes(ctx, s, "corpora/h1/c2/events.json", []byte("xy")); err != nil {
		t.Fatal(err)
	}
	if err := store.PutBytes(ctx, s, "corpora/h10/c1/events.json", []byte("z")); err != nil {
		t.Fatal(err)
	}
	b, err := store.GetBytes(ctx, s, "corpora/h1/c1/events.json")
	if err != nil || string(b) != `{"a": 1}` {
		t.Fatalf("get: %q %v", b, err)
	}
	info, err := s.Stat(ctx, "corpora/h1/c2/events.json")
	if err != nil || info.Size != 2 {
		t.Fatalf("stat: %+v %v", info, err)
	}
	if _, err := s.Stat(ctx, "corpora/h1/nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("stat of a missing key: %v", err)
	}
	if _, err := s.Get(ctx, "corpora/h1/nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get of a missing key: %v", err)
	}
	keys, err := s.List(ctx, "corpora/h1/")
	if err != nil || !slices.Equal(keys, []string{"corpora/h1/c1/events.json", "corpora/h1/c2/events.json"}) {
		t.Fatalf("list: %v %v", keys, err)
	}
	if keys, _ := s.List(ctx, "corpora/none/"); len(keys) != 0 {
		t.Fatalf("list of an empty prefix: %v", keys)
	}
	if err := store.PutBytes(ctx, s, "corpora/h1/c1/events.json", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := store.GetBytes(ctx, s, "corpora/h1/c1/events.json"); string(b) != "new" {
		t.Fatalf("overwrite: %q", b)
	}
	for _, bad := range []string{"../escape", "corpora/../../x", "/abs"} {
		if err := store.PutBytes(ctx, s, bad, []byte("x")); err == nil {
			t.Errorf("put %q must be rejected", bad)
		}
	}
}

func TestLocalStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := store.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, s)
	// A failed Put leaves nothing behind.
	err = s.Put(context.Background(), "corpora/h2/broken", io.MultiReader(strings.NewReader("part"), failingReader{}))
	if err == nil {
		t.Fatal("a failing reader must fail the put")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "corpora", "h2"))
	if len(entries) != 0 {
		t.Errorf("a failed put left %v", entries)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestS3StoreAgainstMinIO(t *testing.T) {
	t.Parallel()
	m := testenv.StartMinIO(t)
	exercise(t, m.Store(t, "floorbench-test"))
}

// Processes starting together on a new bucket may all create it: the
// ones that lose the race are not failed (labscale.sh's cpu worker exited
// with "create bucket: Your previous request to create the named bucket
// succeeded and you already own it"). A bucket that does not exist is one
// error naming it, never an empty store.
func TestS3ConcurrentCreatesOfANewBucket(t *testing.T) {
	t.Parallel()
	m := testenv.StartMinIO(t)
	if _, err := s3.New(context.Background(), m.Config("nobucket")); err == nil ||
		!strings.Contains(err.Error(), "s3 bucket nobucket at "+m.Addr+": no such bucket (create it with floorbench store init") {
		t.Fatalf("a missing bucket: %v", err)
	}
	for round := range 5 {
		cfg := m.Config(fmt.Sprintf("race-%d", round))
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() { errs[i] = s3.CreateBucket(context.Background(), cfg) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if _, err := s3.New(context.Background(), cfg); err != nil {
			t.Fatalf("round %d: open the bucket created: %v", round, err)
		}
	}
}

func TestS3WrongCredentialsIsOneClearError(t *testing.T) {
	t.Parallel()
	m := testenv.StartMinIO(t)
	cfg := m.Config("wrong-credentials")
	cfg.SecretKey = "wrong-secret"
	_, err := s3.New(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "access denied: check the S3 access key and secret") || strings.Contains(err.Error(), "wrong-secret") {
		t.Fatalf("error %v", err)
	}
	cfg = m.Config("unreachable")
	cfg.Endpoint = testenv.Addr(testenv.FreePort(t))
	_, err = s3.New(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "cannot reach the S3 endpoint") {
		t.Fatalf("unreachable endpoint: %v", err)
	}
}

// failingBody gives n bytes, then its error.
type failingBody struct {
	n   int
	err error
}

func (f *failingBody) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	k := min(len(p), f.n)
	clear(p[:k])
	f.n -= k
	return k, nil
}

// An upload whose body fails says why, whether the body is sent whole or
// in parts, even where the transport reports the connection the failure
// closed; and nothing is stored.
func TestS3PutOfAFailingBodyGivesItsCause(t *testing.T) {
	ctx := context.Background()
	s := testenv.StartMinIO(t).Store(t, "failing")
	cause := errors.New("the body's own error")
	for _, n := range []int{0, 1 << 10, 6 << 20} {
		key := fmt.Sprintf("x/%d", n)
		err := s.Put(ctx, key, &failingBody{n: n, err: cause})
		if !errors.Is(err, cause) || !strings.Contains(err.Error(), key) {
			t.Fatalf("%d bytes then an error: %v", n, err)
		}
		if ok, err := store.Exists(ctx, s, key); err != nil || ok {
			t.Fatalf("%d bytes then an error: stored %v, %v", n, ok, err)
		}
	}
}
