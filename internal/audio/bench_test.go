package audio

import (
	"path/filepath"
	"testing"
)

// BenchmarkReadWAV reads one minute of a 16 kHz PCM16 channel, what a
// detector does per speaker and minute of conversation.
func BenchmarkReadWAV(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ch.wav")
	if err := WriteWAV(path, sine(220, Rate, 60*Rate, 0.3), Rate); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(2 * 60 * Rate)
	for b.Loop() {
		if _, _, err := ReadWAV(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResampleEspeak converts one minute of espeak-ng's 22,050 Hz
// output to 16 kHz.
func BenchmarkResampleEspeak(b *testing.B) {
	x := sine(220, 22050, 60*22050, 0.3)
	b.SetBytes(4 * 60 * 22050)
	for b.Loop() {
		Resample(x, 22050, Rate)
	}
}

// BenchmarkResamplerRealtime streams one minute of 24 kHz agent audio to
// 16 kHz in 100 ms pieces, what a realtime session does with the agent's
// audio.
func BenchmarkResamplerRealtime(b *testing.B) {
	x := sine(220, 24000, 60*24000, 0.3)
	b.SetBytes(4 * 60 * 24000)
	for b.Loop() {
		r := NewResampler(24000, Rate)
		for i := 0; i < len(x); i += 2400 {
			r.Push(x[i:min(i+2400, len(x))])
		}
		r.Flush()
	}
}
