package viewer

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/store"
)

// storedChannel is one stored channel opened in place: its samples are
// read where a request needs them (audio.PCMFile), never all at once.
type storedChannel struct {
	*audio.PCMFile
	object io.ReadSeeker
	closer io.Closer
}

func (c *storedChannel) Close() error { return c.closer.Close() }

// openChannel opens speaker k's stored channel of a conversation of the
// corpus under prefix. Objects of both stores seek; one that does not is
// read whole, within the input limit.
func (s *Server) openChannel(ctx context.Context, prefix, conv string, k int) (*storedChannel, error) {
	key := channelKey(prefix, conv, k)
	if err := store.CheckKey(key); err != nil {
		return nil, notFound("no audio: %v", err)
	}
	obj, err := s.store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	rs, ok := obj.(audio.ReadSeekerAt)
	if !ok {
		data, err := io.ReadAll(io.LimitReader(obj, s.limits.InputBytes+1))
		obj.Close()
		if err != nil {
			return nil, err
		}
		rs, obj = bytes.NewReader(data), io.NopCloser(nil)
	}
	f, err := audio.OpenPCMFile(rs)
	if err != nil {
		obj.Close()
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		obj.Close()
		return nil, err
	}
	return &storedChannel{PCMFile: f, object: rs, closer: obj}, nil
}

// openChannels opens every channel of a conversation: speaker_1 and on,
// until one is missing. The caller closes them.
func (s *Server) openChannels(ctx context.Context, prefix, conv string, speakers int) ([]*storedChannel, error) {
	var out []*storedChannel
	for k := 1; k <= speakers; k++ {
		c, err := s.openChannel(ctx, prefix, conv, k)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func closeAll(channels []*storedChannel) {
	for _, c := range channels {
		c.Close()
	}
}

// serveChannel serves one channel's WAV as stored, ranges read from the
// object in place.
func serveChannel(w http.ResponseWriter, r *http.Request, c *storedChannel) {
	w.Header().Set("Content-Type", "audio/wav")
	w.Header().Set("Cache-Control", "max-age=86400, immutable")
	http.ServeContent(w, r, "", time.Time{}, c.object)
}

// newMix is the WAV of channels summed and clipped to [-1, 1], made as it
// is read.
func newMix(conv string, channels []*storedChannel) (*mixReader, error) {
	m := &mixReader{channels: channels}
	for k, c := range channels {
		if k > 0 && c.Rate != channels[0].Rate {
			return nil, fmt.Errorf("%s: speaker_%d is at %d Hz, speaker_1 at %d Hz", conv, k+1, c.Rate, channels[0].Rate)
		}
		m.frames = max(m.frames, c.Frames)
	}
	if 2*m.frames > math.MaxUint32-36 {
		return nil, fmt.Errorf("%s: %d samples do not fit in one WAV file", conv, m.frames)
	}
	var header bytes.Buffer
	if err := audio.EncodeWAV(&header, nil, channels[0].Rate); err != nil {
		return nil, err
	}
	m.header = header.Bytes()
	binary.LittleEndian.PutUint32(m.header[4:], uint32(36+2*m.frames))
	binary.LittleEndian.PutUint32(m.header[40:], uint32(2*m.frames))
	return m, nil
}

// mixReader is a conversation's mix as a PCM16 WAV (io.ReadSeeker for
// http.ServeContent): a read of a range computes only that range's
// samples, from that range of each channel.
type mixReader struct {
	channels []*storedChannel
	frames   int64
	header   []byte
	pos      int64
}

// mixBlock bounds the samples one read computes.
const mixBlock = 1 << 15

func (m *mixReader) size() int64 { return int64(len(m.header)) + 2*m.frames }

func (m *mixReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += m.pos
	case io.SeekEnd:
		offset += m.size()
	}
	if offset < 0 {
		return 0, errors.New("seek before the start")
	}
	m.pos = offset
	return offset, nil
}

func (m *mixReader) Read(p []byte) (int, error) {
	if m.pos >= m.size() {
		return 0, io.EOF
	}
	if h := int64(len(m.header)); m.pos < h {
		n := copy(p, m.header[m.pos:])
		m.pos += int64(n)
		return n, nil
	}
	at := m.pos - int64(len(m.header))
	first := at / 2
	n := min(int64(len(p)+2)/2, m.frames-first, mixBlock)
	sum := make([]float32, n)
	for _, c := range m.channels {
		x, err := c.Window(first, n)
		if err != nil {
			return 0, err
		}
		for i, v := range x {
			sum[i] += v
		}
	}
	buf := make([]byte, 2*n)
	for i, v := range sum {
		binary.LittleEndian.PutUint16(buf[2*i:], uint16(audio.PCM16(max(-1, min(1, v)))))
	}
	copied := copy(p, buf[at-2*first:])
	m.pos += int64(copied)
	return copied, nil
}
