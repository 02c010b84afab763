package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/testenv"
)

// checking is st recording and checking sums as config.Summing does:
// objects under inputs/ are named by their sha256, others summed under
// sums/.
func checking(st store.Store) store.Summing {
	return store.Summing{Store: st,
		Summed: func(k string) bool { return !strings.HasPrefix(k, "inputs/") && !strings.HasPrefix(k, "sums/") },
		SumKey: func(k string) string { return "sums/" + k },
		Named:  func(k string) (string, bool) { return strings.CutPrefix(k, "inputs/") },
	}
}

func sha(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// modelOutput is an object of a realistic size (a model output of a
// conversation of a few minutes: 40,000 float32 values).
var modelOutput = bytes.Repeat([]byte("0123456789abcdef"), 10_000)

// tamper replaces the bytes of key under the sums: what a disk, a bucket
// or a hand does to a stored object.
func tamper(t *testing.T, st store.Store, key string, change func([]byte) []byte) {
	t.Helper()
	ctx := context.Background()
	data, err := store.GetBytes(ctx, st, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.PutBytes(ctx, st, key, change(bytes.Clone(data))); err != nil {
		t.Fatal(err)
	}
}

// Every object read through the store is checked against its recorded
// sum or the sha256 its key names: a clean one reads whole; one whose
// bytes changed (same length or cut short) ends in a *Corrupt naming the
// key and both sums, and a streamed reader never gets its last byte; an
// object stored without a sum reads unchecked.
func exerciseVerified(t *testing.T, under store.Store) {
	ctx := context.Background()
	st := checking(under)
	input := []byte("an uploaded onnx model")
	inputKey := "inputs/" + sha(input)
	objects := map[string][]byte{"model-outputs/m/c/a.bin": modelOutput, "tracks/s/c/a.eot.json": []byte(`{"probs": [0.5]}`), inputKey: input}
	for key, data := range objects {
		if err := store.PutBytes(ctx, st, key, data); err != nil {
			t.Fatal(err)
		}
		got, err := store.GetBytes(ctx, st, key)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %d bytes, %v", key, len(got), err)
		}
		r, err := st.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if err := iotest.TestReader(r, data); err != nil {
			t.Errorf("%s: %v", key, err)
		}
		r.Close()
	}
	changes := map[string]func([]byte) []byte{
		"a flipped byte": func(b []byte) []byte { b[len(b)/2] ^= 1; return b },
		"cut short":      func(b []byte) []byte { return b[:len(b)-1] },
	}
	for key, data := range objects {
		for name, change := range changes {
			tamper(t, under, key, change)
			_, err := store.GetBytes(ctx, st, key)
			var bad *store.Corrupt
			if !errors.As(err, &bad) || bad.Key != key || bad.Want != sha(data) || bad.Got != sha(change(bytes.Clone(data))) ||
				!strings.Contains(err.Error(), "stored object "+key+" is corrupt: sha256 "+bad.Got[:16]) {
				t.Errorf("%s, %s: %v", key, name, err)
			}
			r, err := st.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, iotest.OneByteReader(r))
			r.Close()
			if !errors.As(err, &bad) || n >= int64(len(change(bytes.Clone(data)))) {
				t.Errorf("%s, %s: a stream read %d bytes of %d and ended with %v", key, name, n, len(data), err)
			}
			if err := store.PutBytes(ctx, under, key, data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := store.PutBytes(ctx, under, "tracks/old/c/a.eot.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if got, err := store.GetBytes(ctx, st, "tracks/old/c/a.eot.json"); err != nil || string(got) != "{}" {
		t.Errorf("an object stored without a sum: %q, %v", got, err)
	}
}

func TestLocalStoreChecksWhatItReads(t *testing.T) {
	t.Parallel()
	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	exerciseVerified(t, local)
}

func TestS3StoreChecksWhatItReads(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a MinIO server")
	}
	m := testenv.StartMinIO(t)
	exerciseVerified(t, m.Store(t, "floorbench-verified"))
}

// Readers and writers of the same objects at once (workers that compute
// the same deterministic output and the sweeps that read it) never see a
// mismatch; run under the race detector.
func TestConcurrentReadsAndWritesOfCheckedObjects(t *testing.T) {
	t.Parallel()
	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := checking(local)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 8 {
		wg.Go(func() {
			for i := range 20 {
				key := fmt.Sprintf("tracks/s/c/%d.json", i%4)
				data := bytes.Repeat([]byte{byte('a' + i%4)}, 1000+i%4)
				if w%2 == 0 {
					if err := store.PutBytes(ctx, st, key, data); err != nil {
						errs <- err
					}
					continue
				}
				got, err := store.GetBytes(ctx, st, key)
				if err != nil && !errors.Is(err, store.ErrNotFound) || err == nil && !bytes.Equal(got, data) {
					errs <- fmt.Errorf("%s: %d bytes, %v", key, len(got), err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkReadChecked reads a model output of 160 KB and a track of 2 MB
// from a local store with and without the check against its recorded
// sum (the store read path every reader takes):
//
//	go test -run '^$' -bench 'ReadChecked$' -benchmem ./internal/store/
func BenchmarkReadChecked(b *testing.B) {
	local, err := store.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	benchmarkReadChecked(b, local)
}

// BenchmarkS3ReadChecked is BenchmarkReadChecked on a real MinIO server,
// where a checked read is one more request (the sum's):
//
//	go test -run '^$' -bench S3ReadChecked -benchmem ./internal/store/
func BenchmarkS3ReadChecked(b *testing.B) {
	benchmarkReadChecked(b, testenv.StartMinIO(b).Store(b, "floorbench-bench"))
}

func benchmarkReadChecked(b *testing.B, raw store.Store) {
	ctx := context.Background()
	for _, size := range []int{len(modelOutput), 2 << 20} {
		data := bytes.Repeat([]byte{0x5a}, size)
		key := fmt.Sprintf("model-outputs/m/c/%d.bin", size)
		if err := store.PutBytes(ctx, checking(raw), key, data); err != nil {
			b.Fatal(err)
		}
		for _, read := range []struct {
			name string
			st   store.Store
		}{{"unchecked", raw}, {"checked", checking(raw)}} {
			b.Run(fmt.Sprintf("%s/%dKB", read.name, size>>10), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size))
				for b.Loop() {
					got, err := store.GetBytes(ctx, read.st, key)
					if err != nil || len(got) != size {
						b.Fatalf("%d bytes, %v", len(got), err)
					}
				}
			})
		}
	}
}
