package store_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/floorbench/floorbench/internal/testenv"
)

// BenchmarkS3PutGet puts and gets objects of 2 KB and 50 MB on a real MinIO
// server, from a reader that knows its length and from a plain stream (the
// bytes read through a MultiReader), reporting allocations per round trip:
// an upload of unknown length is bounded by its part size, not by the
// largest object S3 allows.
//
//	go test -run '^$' -bench S3PutGet -benchtime 5x ./internal/store/
func BenchmarkS3PutGet(b *testing.B) {
	m := testenv.StartMinIO(b)
	s := m.Store(b, "floorbench-bench")
	ctx := context.Background()
	for _, size := range []int{2 << 10, 50 << 20} {
		data := bytes.Repeat([]byte{0x5a}, size)
		for _, kind := range []string{"sized", "stream"} {
			b.Run(fmt.Sprintf("%s/%dKB", kind, size>>10), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size))
				for i := 0; b.Loop(); i++ {
					var r io.Reader = bytes.NewReader(data)
					if kind == "stream" {
						r = io.MultiReader(r)
					}
					key := fmt.Sprintf("bench/%s-%d-%d", kind, size, i)
					if err := s.Put(ctx, key, r); err != nil {
						b.Fatal(err)
					}
					rc, err := s.Get(ctx, key)
					if err != nil {
						b.Fatal(err)
					}
					n, err := io.Copy(io.Discard, rc)
					rc.Close()
					if err != nil || n != int64(size) {
						b.Fatalf("got %d bytes, %v", n, err)
					}
				}
			})
		}
	}
}
