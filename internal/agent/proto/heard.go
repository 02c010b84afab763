package proto

import (
	"fmt"

	"github.com/floorbench/floorbench/internal/audio"
)

// HeardInput is what an agent served over protocol hears of input when a
// Session sends it, frame by frame: the frames its server hands
// Agent.Hear, joined, in order. input is whole frames (a multiple of
// FrameSamples samples).
//
// duplex and gemini-live carry 16 kHz PCM16, so the agent hears every
// sample quantised to 16 bits (audio.PCM16). realtime sends realtimePriming samples of silence
// ahead of the input, resamples each frame to 24 kHz as it is sent,
// carries PCM16, and resamples back to 16 kHz on the server: the server
// completes its frame k from frame k's append, and its frames are the
// input's four samples (0.25 ms) late, the last four samples unheard. An
// offline run over HeardInput sees, bit for bit, what a live agent
// decided on. moshi encodes each frame into one Opus packet and the
// server hears their decoding with the pre-skip (the encoder's 2.5 ms of
// lookahead) dropped, lossy but on time: frame k once packet k+1 has
// come, so the last frame sent is not heard. libopus gives the same bits
// for the same frames, so HeardInput encodes and decodes them as the
// session does.
func HeardInput(protocol string, input []float32) ([]float32, error) {
	if err := CheckProtocol(protocol); err != nil {
		return nil, err
	}
	if len(input)%FrameSamples != 0 {
		return nil, fmt.Errorf("input of %d samples is not whole 20 ms frames", len(input))
	}
	switch protocol {
	case DuplexName, GeminiLiveName:
		return quantise(input), nil
	case MoshiName:
		return moshiHeard(input)
	}
	up, down := newRealtimeInput(), audio.NewResampler(realtimeRate, SampleRate)
	var heard []float32
	for k := 0; k < len(input); k += FrameSamples {
		heard = append(heard, down.Push(quantise(up.push(input[k:k+FrameSamples])))...)
	}
	return heard[:len(heard)/FrameSamples*FrameSamples], nil
}

// quantise is x as the far side of a PCM16 wire decodes it.
func quantise(x []float32) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(audio.PCM16(v)) / 32768
	}
	return out
}

// moshiHeard is input through a moshi client's encoder and a server's
// decoder.
func moshiHeard(input []float32) ([]float32, error) {
	enc, err := newOpusEncoder(SampleRate)
	if err != nil {
		return nil, err
	}
	dec, err := newOpusDecoder(SampleRate)
	if err != nil {
		return nil, err
	}
	heard := make([]float32, 0, len(input))
	for k := 0; k < len(input); k += FrameSamples {
		p, err := enc.encode(input[k : k+FrameSamples])
		if err != nil {
			return nil, err
		}
		x, err := dec.decode(p)
		if err != nil {
			return nil, err
		}
		heard = append(heard, x...)
	}
	skip := opusLookahead48k * SampleRate / 48000
	heard = heard[min(skip, len(heard)):]
	return heard[:len(heard)/FrameSamples*FrameSamples], nil
}
