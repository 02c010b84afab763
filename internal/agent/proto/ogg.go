package proto

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Ogg pages (RFC 3533) carrying one Opus stream (RFC 7845), as the moshi
// protocol's audio messages do: the pager below writes whole packets on
// a page and reads pages cut anywhere across messages, with packets laced
// across pages.
const (
	// oggHeaderLen is a page's header before its lacing values: a page is
	// at most this, 255 lacing values and 255 segments of 255 bytes, so
	// the reader holds at most that of a page it has not seen whole.
	oggHeaderLen = 27
	// oggMaxPacket bounds a packet laced across pages: an Opus packet is at
	// most 120 ms of audio, well under a kilobyte per 20 ms at any bit rate
	// Moshi uses, and OpusTags holds a vendor string and a few comments.
	oggMaxPacket = 64 << 10
	// The header type flags.
	oggContinued = 0x01
	oggBOS       = 0x02
	oggEOS       = 0x04
)

var oggCapture = []byte("OggS")

// oggCRC is the table of the Ogg checksum: CRC-32 with polynomial
// 0x04c11db7, not reflected, initial value 0, no final xor (RFC 3533 section 6).
var oggCRC = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for range 8 {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04c11db7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

func oggChecksum(page []byte) uint32 {
	var crc uint32
	for _, b := range page {
		crc = crc<<8 ^ oggCRC[byte(crc>>24)^b]
	}
	return crc
}

// oggWriter writes the pages of one logical stream.
type oggWriter struct {
	serial uint32
	seq    uint32
}

// page is one page holding packets whole, at granule position granule
// (RFC 7845 section 4: the 48 kHz samples decoded up to the end of the page,
// pre-skip included); flags are oggBOS or oggEOS or 0. The packets need
// at most 255 lacing values together (an Opus packet or header needs a
// few).
func (w *oggWriter) page(granule int64, flags byte, packets ...[]byte) []byte {
	var lacing, body []byte
	for _, p := range packets {
		for range len(p) / 255 {
			lacing = append(lacing, 255)
		}
		lacing = append(lacing, byte(len(p)%255))
		body = append(body, p...)
	}
	p := make([]byte, oggHeaderLen, oggHeaderLen+len(lacing)+len(body))
	copy(p, oggCapture)
	p[5] = flags
	binary.LittleEndian.PutUint64(p[6:], uint64(granule))
	binary.LittleEndian.PutUint32(p[14:], w.serial)
	binary.LittleEndian.PutUint32(p[18:], w.seq)
	p[26] = byte(len(lacing))
	p = append(append(p, lacing...), body...)
	binary.LittleEndian.PutUint32(p[22:], oggChecksum(p))
	w.seq++
	return p
}

// oggReader reads the pages of one logical stream from bytes that come
// in pieces and gives its packets whole. It refuses a page that is not
// Ogg, fails its checksum, belongs to another stream or skips a sequence
// number, and a packet over oggMaxPacket.
type oggReader struct {
	buf     []byte // bytes of a page not yet complete
	started bool
	serial  uint32
	seq     uint32
	packet  []byte // a packet continued on the next page
	open    bool   // packet is continued
	ended   bool   // the end-of-stream page was read
}

// read takes the next bytes of the stream and returns the packets the
// pages they complete hold.
func (r *oggReader) read(data []byte) ([][]byte, error) {
	r.buf = append(r.buf, data...)
	var packets [][]byte
	for {
		n, err := r.pageLen()
		if err != nil || n == 0 {
			return packets, err
		}
		page := r.buf[:n]
		got, err := r.readPage(page)
		if err != nil {
			return packets, err
		}
		packets = append(packets, got...)
		r.buf = append(r.buf[:0], r.buf[n:]...)
	}
}

// pageLen is the length of the page at the start of buf once it is all
// there, 0 until then.
func (r *oggReader) pageLen() (int, error) {
	b := r.buf
	if len(b) < oggHeaderLen {
		if !bytes.HasPrefix(oggCapture, b[:min(len(b), len(oggCapture))]) {
			return 0, fmt.Errorf("%w: audio that is not an Ogg page (no OggS capture pattern)", ErrProtocol)
		}
		return 0, nil
	}
	if !bytes.Equal(b[:4], oggCapture) {
		return 0, fmt.Errorf("%w: audio that is not an Ogg page (no OggS capture pattern)", ErrProtocol)
	}
	if b[4] != 0 {
		return 0, fmt.Errorf("%w: an Ogg page of version %d (want 0)", ErrProtocol, b[4])
	}
	segs := int(b[26])
	if len(b) < oggHeaderLen+segs {
		return 0, nil
	}
	n := oggHeaderLen + segs
	for _, l := range b[oggHeaderLen : oggHeaderLen+segs] {
		n += int(l)
	}
	if len(b) < n {
		return 0, nil
	}
	return n, nil
}

// readPage checks one whole page and returns the packets it completes.
func (r *oggReader) readPage(page []byte) ([][]byte, error) {
	flags := page[5]
	serial := binary.LittleEndian.Uint32(page[14:])
	seq := binary.LittleEndian.Uint32(page[18:])
	want := binary.LittleEndian.Uint32(page[22:])
	crcless := append([]byte(nil), page...)
	clear(crcless[22:26])
	if got := oggChecksum(crcless); got != want {
		return nil, fmt.Errorf("%w: Ogg page %d fails its checksum (%08x, the page says %08x)", ErrProtocol, seq, got, want)
	}
	switch {
	case r.ended:
		return nil, fmt.Errorf("%w: an Ogg page after the end of the stream", ErrProtocol)
	case !r.started && flags&oggBOS == 0:
		return nil, fmt.Errorf("%w: the first Ogg page does not begin a stream", ErrProtocol)
	case !r.started:
		r.started, r.serial, r.seq = true, serial, seq
	case flags&oggBOS != 0 || serial != r.serial:
		return nil, fmt.Errorf("%w: a second Ogg stream (serial %d); moshi audio is one stream", ErrProtocol, serial)
	case seq != r.seq:
		return nil, fmt.Errorf("%w: Ogg page %d where page %d was due", ErrProtocol, seq, r.seq)
	}
	r.seq++
	r.ended = flags&oggEOS != 0
	if (flags&oggContinued != 0) != r.open {
		return nil, fmt.Errorf("%w: Ogg page %d's continued flag does not match the packet before it", ErrProtocol, seq)
	}
	segs := int(page[26])
	body := page[oggHeaderLen+segs:]
	var packets [][]byte
	for _, l := range page[oggHeaderLen : oggHeaderLen+segs] {
		r.packet = append(r.packet, body[:l]...)
		body = body[l:]
		if len(r.packet) > oggMaxPacket {
			return nil, fmt.Errorf("%w: an Ogg packet of more than %d bytes", ErrProtocol, oggMaxPacket)
		}
		r.open = l == 255
		if !r.open {
			packets = append(packets, r.packet)
			r.packet = nil
		}
	}
	return packets, nil
}
