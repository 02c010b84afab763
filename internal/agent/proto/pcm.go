package proto

import (
	"encoding/binary"
	"fmt"

	"github.com/floorbench/floorbench/internal/audio"
)

// encodePCM16 writes x as 16-bit little-endian PCM, clipped to full scale.
func encodePCM16(x []float32) []byte {
	b := make([]byte, 2*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(audio.PCM16(v)))
	}
	return b
}

// decodePCM16 reads 16-bit little-endian PCM; an odd number of bytes is
// not PCM16.
func decodePCM16(b []byte) ([]float32, error) {
	if len(b)%2 != 0 {
		return nil, fmt.Errorf("%w: %d bytes of PCM16 (an odd number)", ErrProtocol, len(b))
	}
	x := make([]float32, len(b)/2)
	for i := range x {
		x[i] = float32(int16(binary.LittleEndian.Uint16(b[2*i:]))) / 32768
	}
	return x, nil
}
