//go:build !floorbench_light

package proto

import (
	"fmt"

	"gopkg.in/hraban/opus.v2"
)

// The Opus codec is libopus through its Go binding (cgo). The front
// binary (-tags floorbench_light) links neither: opus_light.go.

// opusMissing is nil: this binary links libopus.
var opusMissing error

// opusBitrate is what floorbench's encoders spend: 48 kbit/s, where Opus
// keeps speech near transparent at 16 kHz, so that what an agent decides
// over moshi is what it decides over PCM (docs/agents.md#moshi).
const opusBitrate = 48000

// libopusEncoder is an opusEncoder of libopus in its restricted low-delay
// mode (CELT alone): the least lookahead libopus has, opusLookahead48k.
// Its complexity stays libopus's default (10): at 5 it costs a fifth of
// the time, but codes the -47 dB noise between turns of tiny-agent a few
// dB further off, enough to move the reference agent's entry in one trial
// by 100 ms (TestPoliciesGiveTheirKnownAnswers).
type libopusEncoder struct {
	enc *opus.Encoder
	buf []byte
}

func newOpusEncoder(rate int) (opusEncoder, error) {
	enc, err := opus.NewEncoder(rate, 1, opus.AppRestrictedLowdelay)
	if err != nil {
		return nil, fmt.Errorf("opus encoder at %d Hz: %w", rate, err)
	}
	if err := enc.SetBitrate(opusBitrate); err != nil {
		return nil, fmt.Errorf("opus encoder bit rate: %w", err)
	}
	return &libopusEncoder{enc: enc, buf: make([]byte, 4000)}, nil
}

func (e *libopusEncoder) encode(frame []float32) ([]byte, error) {
	n, err := e.enc.EncodeFloat32(frame, e.buf)
	if err != nil {
		return nil, fmt.Errorf("opus: encoding %d samples: %w", len(frame), err)
	}
	return append([]byte(nil), e.buf[:n]...), nil
}

// libopusDecoder is an opusDecoder of libopus.
type libopusDecoder struct {
	dec *opus.Decoder
	pcm []float32
}

func newOpusDecoder(rate int) (opusDecoder, error) {
	dec, err := opus.NewDecoder(rate, 1)
	if err != nil {
		return nil, fmt.Errorf("opus decoder at %d Hz: %w", rate, err)
	}
	// 120 ms, the longest packet Opus has.
	return &libopusDecoder{dec: dec, pcm: make([]float32, rate*120/1000)}, nil
}

func (d *libopusDecoder) decode(packet []byte) ([]float32, error) {
	n, err := d.dec.DecodeFloat32(packet, d.pcm)
	if err != nil {
		return nil, fmt.Errorf("%w: an Opus packet of %d bytes libopus cannot decode (%v)", ErrProtocol, len(packet), err)
	}
	// Opus may decode a loud frame past full scale; clip it as libopus's
	// 16-bit output does, so what is heard is audio a recording can hold.
	out := make([]float32, n)
	for i, v := range d.pcm[:n] {
		out[i] = min(1, max(-1, v))
	}
	return out, nil
}
