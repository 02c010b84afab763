//go:build floorbench_light

package proto

import "errors"

// errNoOpus is what the front binary says of moshi audio: it links no
// libopus, to start without it (docs/performance.md#start-time).
var errNoOpus = errors.New("the moshi protocol's Opus audio needs floorbench-full (this front binary links no libopus)")

func newOpusEncoder(int) (opusEncoder, error) { return nil, errNoOpus }

func newOpusDecoder(int) (opusDecoder, error) { return nil, errNoOpus }
