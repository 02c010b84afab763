package proto

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// An Ogg Opus stream (RFC 7845): an OpusHead packet, an OpusTags packet,
// then one Opus packet per page.

// opusEncoder encodes one frame of mono audio (2.5 to 60 ms at its rate)
// into one Opus packet; opusDecoder decodes one packet at its rate.
type (
	opusEncoder interface {
		encode(frame []float32) ([]byte, error)
	}
	opusDecoder interface {
		decode(packet []byte) ([]float32, error)
	}
)

// opusLookahead48k is the delay of libopus's restricted low-delay mode,
// in 48 kHz samples: 2.5 ms at any rate (OPUS_GET_LOOKAHEAD is Fs/400
// there). A stream floorbench encodes declares it as its pre-skip, so its
// decoded audio lines up with what was encoded, sample for sample.
const opusLookahead48k = 120

var (
	opusHeadMagic = []byte("OpusHead")
	opusTagsMagic = []byte("OpusTags")
)

// opusVendor names the encoder in OpusTags.
const opusVendor = "floorbench (libopus)"

// opusStreamWriter writes an Ogg Opus stream of mono audio at rate.
type opusStreamWriter struct {
	ogg     oggWriter
	enc     opusEncoder
	rate    int
	preSkip int   // 48 kHz samples
	granule int64 // 48 kHz samples written, pre-skip included
}

// newOpusStreamWriter starts a stream whose OpusHead declares preSkip
// (48 kHz samples) and rate as the input's.
func newOpusStreamWriter(serial uint32, rate, preSkip int) (*opusStreamWriter, error) {
	enc, err := newOpusEncoder(rate)
	if err != nil {
		return nil, err
	}
	return &opusStreamWriter{ogg: oggWriter{serial: serial}, enc: enc, rate: rate, preSkip: preSkip}, nil
}

// headers are the stream's first two pages, OpusHead and OpusTags.
func (w *opusStreamWriter) headers() []byte {
	head := make([]byte, 19)
	copy(head, opusHeadMagic)
	head[8] = 1 // version
	head[9] = 1 // channels
	binary.LittleEndian.PutUint16(head[10:], uint16(w.preSkip))
	binary.LittleEndian.PutUint32(head[12:], uint32(w.rate))
	// output gain 0, channel mapping family 0 (mono or stereo, no table)
	tags := binary.LittleEndian.AppendUint32(append([]byte(nil), opusTagsMagic...), uint32(len(opusVendor)))
	tags = binary.LittleEndian.AppendUint32(append(tags, opusVendor...), 0)
	return append(w.ogg.page(0, oggBOS, head), w.ogg.page(0, 0, tags)...)
}

// page encodes frame into one packet on one page.
func (w *opusStreamWriter) page(frame []float32) ([]byte, error) {
	packet, err := w.enc.encode(frame)
	if err != nil {
		return nil, err
	}
	if w.granule == 0 {
		w.granule = int64(w.preSkip)
	}
	w.granule += int64(len(frame) * 48000 / w.rate)
	return w.ogg.page(w.granule, 0, packet), nil
}

// opusStreamReader reads an Ogg Opus stream of mono audio, decoded at
// rate with its pre-skip dropped (RFC 7845 section 4.2).
type opusStreamReader struct {
	ogg     oggReader
	dec     opusDecoder
	rate    int
	packets int // packets read, headers included
	skip    int // samples at rate still to drop
}

func newOpusStreamReader(rate int) (*opusStreamReader, error) {
	dec, err := newOpusDecoder(rate)
	if err != nil {
		return nil, err
	}
	return &opusStreamReader{dec: dec, rate: rate}, nil
}

// read takes the next bytes of the stream and returns the audio the
// packets they complete decode to.
func (r *opusStreamReader) read(data []byte) ([]float32, error) {
	packets, err := r.ogg.read(data)
	if err != nil {
		return nil, err
	}
	var out []float32
	for _, p := range packets {
		r.packets++
		switch r.packets {
		case 1:
			if err := r.head(p); err != nil {
				return nil, err
			}
			continue
		case 2:
			if !bytes.HasPrefix(p, opusTagsMagic) {
				return nil, fmt.Errorf("%w: the second Ogg Opus packet is not OpusTags", ErrProtocol)
			}
			continue
		}
		x, err := r.dec.decode(p)
		if err != nil {
			return nil, err
		}
		drop := min(r.skip, len(x))
		r.skip -= drop
		out = append(out, x[drop:]...)
	}
	return out, nil
}

// head reads OpusHead (RFC 7845 section 5.1): version 0.x, one channel, mapping
// family 0; its pre-skip is dropped from the decoded audio.
func (r *opusStreamReader) head(p []byte) error {
	switch {
	case len(p) < 19 || !bytes.HasPrefix(p, opusHeadMagic):
		return fmt.Errorf("%w: the first Ogg Opus packet is not OpusHead", ErrProtocol)
	case p[8]>>4 != 0:
		return fmt.Errorf("%w: OpusHead version %d (want 0.x, RFC 7845)", ErrProtocol, p[8])
	case p[9] != 1:
		return fmt.Errorf("%w: OpusHead declares %d channels; moshi audio is mono", ErrProtocol, p[9])
	case p[18] != 0:
		return fmt.Errorf("%w: OpusHead channel mapping family %d (want 0, mono)", ErrProtocol, p[18])
	}
	r.skip = int(binary.LittleEndian.Uint16(p[10:])) * r.rate / 48000
	return nil
}
