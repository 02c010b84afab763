package proto

import (
	"testing"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/audio"
)

// BenchmarkRealtimeDelta is what a realtime client does with 100 ms of
// the agent's audio (one delta of the reference server): parse the event,
// decode the base64 PCM16, resample 24 to 16 kHz. At rate r a session
// must do it in under 100/r ms.
func BenchmarkRealtimeDelta(b *testing.B) {
	m := encodeRealtime(rtEvent{Type: "response.audio.delta", ItemID: "item_1", Delta: encodeAudio(make([]float32, realtimeRate/10))})
	r := audio.NewResampler(realtimeRate, SampleRate)
	for b.Loop() {
		e, err := parseRealtime(websocket.MessageText, m.data)
		if err != nil {
			b.Fatal(err)
		}
		x, err := decodeAudio("delta", e.Delta)
		if err != nil {
			b.Fatal(err)
		}
		r.Push(x)
	}
}

// BenchmarkRealtimeAppend is what a realtime client does with one 20 ms
// input frame: resample 16 to 24 kHz, encode, wrap in an event.
func BenchmarkRealtimeAppend(b *testing.B) {
	c := &realtimeClient{in: newRealtimeInput()}
	frame := make([]float32, FrameSamples)
	for b.Loop() {
		c.encode(frame)
	}
}

// BenchmarkMoshiFrame is what one 20 ms frame costs each side of a moshi
// session, both ways: Opus-encode a frame of speech-like audio on a page,
// read the page and decode it. A session at rate r must do it twice
// (input and the agent's audio) in under 20/r ms.
func BenchmarkMoshiFrame(b *testing.B) {
	w, err := newOpusStreamWriter(1, SampleRate, opusLookahead48k)
	if err != nil {
		b.Fatal(err)
	}
	r, err := newOpusStreamReader(SampleRate)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.read(w.headers()); err != nil {
		b.Fatal(err)
	}
	x := tone(SampleRate, SampleRate)
	for i := range x {
		x[i] *= float32(1+i%7) / 4 // not a pure tone
	}
	k := 0
	for b.Loop() {
		page, err := w.page(x[k : k+FrameSamples])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.read(page); err != nil {
			b.Fatal(err)
		}
		k = (k + FrameSamples) % len(x)
	}
}
