package detect

import (
	"context"
	"encoding/binary"
	"fmt"

	webrtcvad "github.com/maxhawkins/go-webrtcvad"
)

var webrtcParams = []Param{
	{Name: "mode", Kind: KindInt, Default: 2, Doc: "aggressiveness 0 (least) to 3 (most): higher rejects more non-speech"},
	{Name: "frame_ms", Kind: KindInt, Default: 20, Doc: "frame length: 10, 20 or 30 ms"},
}

// webrtcActivity runs one WebRTC VAD instance per channel (the VAD keeps
// state between frames) on non-overlapping frames; activity is its 0/1
// decision.
type webrtcActivity struct {
	mode, frame int
}

func newWebRTCActivity(v values) (*webrtcActivity, error) {
	mode, ms := v.int("mode"), v.int("frame_ms")
	if mode < 0 || mode > 3 {
		return nil, fmt.Errorf("webrtcvad: mode must be 0, 1, 2 or 3, got %d", mode)
	}
	if ms != 10 && ms != 20 && ms != 30 {
		return nil, fmt.Errorf("webrtcvad: frame_ms must be 10, 20 or 30, got %d", ms)
	}
	return &webrtcActivity{mode: mode, frame: SampleRate * ms / 1000}, nil
}

func (w *webrtcActivity) activity(ctx context.Context, channels [][]float32) (*activity, error) {
	act := newActivity(len(channels), w.frame, w.frame)
	pcm := make([]byte, 2*w.frame)
	for k, ch := range channels {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vad, err := webrtcvad.New()
		if err != nil {
			return nil, fmt.Errorf("webrtcvad: %w", err)
		}
		if err := vad.SetMode(w.mode); err != nil {
			return nil, fmt.Errorf("webrtcvad: %w", err)
		}
		values := make([]float32, steps(len(ch), w.frame, w.frame))
		for j := range values {
			for i, s := range ch[j*w.frame : (j+1)*w.frame] {
				binary.LittleEndian.PutUint16(pcm[2*i:], uint16(pcm16(s)))
			}
			speech, err := vad.Process(SampleRate, pcm)
			if err != nil {
				return nil, fmt.Errorf("webrtcvad: %w", err)
			}
			if speech {
				values[j] = 1
			}
		}
		act.values[k] = values
	}
	return act, nil
}

// pcm16 converts a sample in [-1, 1] to 16-bit PCM, clipping outside it.
// It truncates toward zero, which returns 16-bit input (i/32768) exactly.
func pcm16(s float32) int16 {
	return int16(max(-32768, min(32767, s*32768)))
}

func (w *webrtcActivity) close() error { return nil }
