package detect

import (
	"errors"
	"io"
)

// timelineReader reads a conversation's timeline (every channel cut or
// zero-padded to heardSamples, as timeline gives it) a chunk at a time:
// from channels in memory, or from the conversation's readers, of which
// it holds one chunk each.
type timelineReader struct {
	whole   [][]float32     // the timeline, where the channels are in memory
	readers []ChannelReader // else one per speaker
	ended   []bool
	bufs    [][]float32
	chunk   [][]float32
	at, n   int
}

// readTimeline starts reading c's timeline; the caller closes it.
func readTimeline(c *Conversation) (*timelineReader, error) {
	r := &timelineReader{n: c.heardSamples(), chunk: make([][]float32, c.speakers())}
	if c.Channels != nil || c.Open == nil {
		r.whole = c.timeline()
		return r, nil
	}
	r.ended, r.bufs = make([]bool, c.Speakers), make([][]float32, c.Speakers)
	for k := range c.Speakers {
		ch, err := c.Open(k)
		if err != nil {
			r.close()
			return nil, err
		}
		r.readers = append(r.readers, ch)
		r.bufs[k] = make([]float32, min(fileChunk, r.n))
	}
	return r, nil
}

// next returns the timeline's next chunk, at most fileChunk samples of
// every channel, valid until the following call; nil once the timeline
// has been read.
func (r *timelineReader) next() ([][]float32, error) {
	if r.at == r.n {
		return nil, nil
	}
	end := min(r.at+fileChunk, r.n)
	for k := range r.chunk {
		if r.readers == nil {
			r.chunk[k] = r.whole[k][r.at:end]
			continue
		}
		buf := r.bufs[k][:end-r.at]
		got := 0
		if !r.ended[k] {
			var err error
			got, err = r.readers[k].Read(buf)
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			r.ended[k] = got < len(buf)
		}
		// A channel shorter than the timeline is silence after its end.
		clear(buf[got:])
		r.chunk[k] = buf
	}
	r.at = end
	return r.chunk, nil
}

// close closes the readers.
func (r *timelineReader) close() {
	for _, ch := range r.readers {
		ch.Close()
	}
}

// wholeTimeline is c's timeline in memory, for a detector that reads
// whole channels: read from its readers where it has no channels.
func wholeTimeline(c *Conversation) ([][]float32, error) {
	if c.Channels != nil || c.Open == nil {
		return c.timeline(), nil
	}
	r, err := readTimeline(c)
	if err != nil {
		return nil, err
	}
	defer r.close()
	out := make([][]float32, c.speakers())
	for k := range out {
		out[k] = make([]float32, 0, r.n)
	}
	for {
		chunk, err := r.next()
		if err != nil || chunk == nil {
			return out, err
		}
		for k, ch := range chunk {
			out[k] = append(out[k], ch...)
		}
	}
}
