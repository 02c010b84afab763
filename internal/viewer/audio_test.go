package viewer_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
)

// The mix is made as it is read: whole, it is every channel summed and
// clipped; any range of it, even one starting inside a sample, is those
// bytes of the whole.
func TestTheMixIsTheSumOfTheChannelsInEveryRange(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t)
	res := results(t, f.store, f.cur)
	e := res.Evaluations[0]
	conv := e.Tasks[0].Events[0].Conversation
	var channels [][]float32
	for k := 1; ; k++ {
		data, err := store.GetBytes(context.Background(), f.store, keys.MemberFile(keys.Corpus(e.CorpusHash), conv, fmt.Sprintf("speaker_%d.wav", k)))
		if err != nil {
			break
		}
		x, _, err := audio.DecodeWAV(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		channels = append(channels, x)
	}
	if len(channels) < 2 {
		t.Fatalf("%d channels", len(channels))
	}
	sum := make([]float32, len(channels[0]))
	for _, x := range channels {
		for i, v := range x {
			sum[i] += v
		}
	}
	for i, v := range sum {
		sum[i] = max(-1, min(1, v))
	}
	var want bytes.Buffer
	if err := audio.EncodeWAV(&want, sum, 16000); err != nil {
		t.Fatal(err)
	}
	path := "/bundles/" + f.cur + "/audio?" + url.Values{"corpus": {e.Corpus}, "conv": {conv}}.Encode() + "&channel=mix"
	resp, whole := get(t, srv, path)
	if resp.StatusCode != http.StatusOK || whole != want.String() {
		t.Fatalf("whole mix: %d, %d bytes, want %d bytes of the summed channels", resp.StatusCode, len(whole), want.Len())
	}
	for _, r := range [][2]int{{0, 43}, {40, 50}, {1001, 70000}, {want.Len() - 3, want.Len() - 1}} {
		resp, part := get(t, srv, path, "Range", fmt.Sprintf("bytes=%d-%d", r[0], r[1]))
		if resp.StatusCode != http.StatusPartialContent || part != want.String()[r[0]:r[1]+1] {
			t.Errorf("range %v: %d, %d bytes, not those bytes of the whole mix", r, resp.StatusCode, len(part))
		}
	}
}
