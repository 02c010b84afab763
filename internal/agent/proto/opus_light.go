//go:build floorbench_light

package proto

import "errors"

// opusMissing is what the front binary says of the moshi protocol: it
// links no libopus, to start without it (docs/performance.md#start-time).
var opusMissing = errors.New("the moshi protocol needs floorbench-full: this front binary links no libopus (Opus audio)")

func newOpusEncoder(int) (opusEncoder, error) { return nil, opusMissing }

func newOpusDecoder(int) (opusDecoder, error) { return nil, opusMissing }
