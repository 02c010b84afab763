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
