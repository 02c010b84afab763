package detect

import (
	"context"
	"errors"
	"fmt"
)

// ErrBusy is what a Feed's Next returns, while other conversations run,
// when the next one must wait for what they hold (memory): RunAll asks
// again once one of them has finished.
var ErrBusy = errors.New("busy: wait for a running conversation")

// Feed hands Model.RunAll its conversations and takes their outputs.
type Feed struct {
	// Next returns the next conversation, or nil when none is left. busy
	// says that other conversations are running: rather than wait for
	// what they hold, Next may then return ErrBusy.
	Next func(ctx context.Context, busy bool) (*Conversation, error)
	// Done takes a conversation's output; RunAll reads the conversation
	// no more after it.
	Done func(c *Conversation, out *ModelOutput) error
}

// RunAll runs the model over every conversation Feed.Next gives and hands
// each output to Feed.Done as it completes, not necessarily in order.
// Outputs are those Run gives, bit for bit. Models that run rows (Silero,
// onnx models whose every state has a batch dimension) run the
// conversations' speakers as the rows of one batch, at most the runtime's
// BatchRows (a conversation with more speakers runs alone): each row
// keeps its own state, a conversation that ends leaves the batch (its
// rows are retired, the others keep their state), and the next one takes
// its place. Other models run one conversation after another.
func (m *Model) RunAll(ctx context.Context, feed Feed) error {
	rm, ok := m.model.(rowModel)
	if !ok || !rm.batchable() {
		return m.runEach(ctx, feed)
	}
	b := &batchRun{model: rm, rows: m.rows, feed: feed}
	defer b.close()
	return b.run(ctx)
}

// runEach runs one conversation after another.
func (m *Model) runEach(ctx context.Context, feed Feed) error {
	for {
		c, err := feed.Next(ctx, false)
		if err != nil || c == nil {
			return err
		}
		out, err := m.Run(ctx, c)
		if err != nil {
			return fmt.Errorf("conversation %q: %w", c.ID, err)
		}
		if err := feed.Done(c, out); err != nil {
			return err
		}
	}
}

// batchRun is RunAll of a row model: the lanes in the batch, each a
// conversation's rows, in row order.
type batchRun struct {
	model   rowModel
	rows    int
	feed    Feed
	stepper stepper
	lanes   []*lane
	waiting *Conversation // fetched, not yet in the batch
	fed     bool          // Next has said there is no more
	// moved: lanes joined or left since the rows were last laid out.
	moved bool
	steps int
}

// lane is one conversation in the batch: its timeline, read a chunk at a
// time as its rows need it, and its output so far.
type lane struct {
	c        *Conversation
	timeline *timelineReader
	group    *rowGroup
	out      *ModelOutput
	// first is the lane's first row in the batch: -1 until it is laid
	// out.
	first int
}

func (b *batchRun) run(ctx context.Context) error {
	for {
		if err := b.admit(ctx); err != nil {
			return err
		}
		if len(b.lanes) == 0 {
			if b.fed {
				return nil
			}
			continue
		}
		if b.moved {
			if err := b.relayout(); err != nil {
				return err
			}
		}
		if b.steps%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := b.step(); err != nil {
			return err
		}
		if err := b.retire(); err != nil {
			return err
		}
	}
}

// admit adds conversations to the batch while their rows fit; one with
// more speakers than the batch's rows joins an empty batch alone.
func (b *batchRun) admit(ctx context.Context) error {
	for !b.fed {
		if b.waiting == nil {
			c, err := b.feed.Next(ctx, len(b.lanes) > 0)
			switch {
			case errors.Is(err, ErrBusy) && len(b.lanes) > 0:
				return nil
			case err != nil:
				return err
			case c == nil:
				b.fed = true
				return nil
			}
			if err := c.check(); err != nil {
				return err
			}
			b.waiting = c
		}
		c := b.waiting
		if len(b.lanes) > 0 && b.used()+c.speakers() > b.rows {
			return nil
		}
		b.waiting = nil
		if err := b.join(c); err != nil {
			return err
		}
	}
	return nil
}

// join starts a conversation's lane; a conversation too short for one
// step is done at once.
func (b *batchRun) join(c *Conversation) error {
	if b.model.layout().channels == 2 && c.speakers() < 2 {
		return fmt.Errorf("conversation %q: layout %s needs at least 2 speakers, got %d", c.ID, LayoutSpeakerVsRest, c.speakers())
	}
	timeline, err := readTimeline(c)
	if err != nil {
		return err
	}
	l := &lane{c: c, timeline: timeline, group: newRowGroup(b.model.layout(), c.speakers()),
		out: newModelOutput(b.model.outputs(), c.speakers(), c.Duration), first: -1}
	ready, err := l.ready()
	if err != nil || !ready {
		timeline.close()
	}
	switch {
	case err != nil:
		return err
	case !ready:
		l.out.pad()
		return b.feed.Done(c, l.out)
	}
	b.lanes, b.moved = append(b.lanes, l), true
	return nil
}

func (b *batchRun) used() int {
	n := 0
	for _, l := range b.lanes {
		n += l.group.speakers()
	}
	return n
}

// relayout gives the lanes consecutive rows: each running lane keeps its
// rows' state, each new one starts from zero.
func (b *batchRun) relayout() error {
	var keep []int
	for _, l := range b.lanes {
		first := len(keep)
		for k := range l.group.speakers() {
			if l.first < 0 {
				keep = append(keep, -1)
			} else {
				keep = append(keep, l.first+k)
			}
		}
		l.first = first
	}
	b.moved = false
	if b.stepper == nil {
		s, err := b.model.newStepper(len(keep))
		if err != nil {
			return err
		}
		b.stepper = s
		return nil
	}
	return b.stepper.resize(keep)
}

// step runs one session call for every lane's next window.
func (b *batchRun) step() error {
	for _, l := range b.lanes {
		l.group.fill(b.stepper, l.first)
	}
	if err := b.stepper.step(); err != nil {
		return fmt.Errorf("step %d: %w", b.steps, err)
	}
	b.steps++
	for _, l := range b.lanes {
		for t := range l.out.Values {
			for k := range l.out.Values[t] {
				l.out.Values[t][k] = append(l.out.Values[t][k], b.stepper.values(t, l.first+k)...)
			}
		}
	}
	return nil
}

// ready reads the lane's timeline until its rows have their next window,
// and reports whether they have: a lane whose timeline is read to the end
// without one is complete.
func (l *lane) ready() (bool, error) {
	for !l.group.ready() {
		chunk, err := l.timeline.next()
		if err != nil || chunk == nil {
			return false, err
		}
		l.group.add(chunk)
	}
	return true, nil
}

// retire hands on the outputs of the lanes that are complete, padded to
// their length (ModelOutput.pad), and takes them out of the batch; the
// next layout drops their rows.
func (b *batchRun) retire() error {
	running := make([]*lane, 0, len(b.lanes)) // b.lanes stays whole for close if a read fails
	var done []*lane
	for _, l := range b.lanes {
		ready, err := l.ready()
		if err != nil {
			return err
		}
		if ready {
			running = append(running, l)
			continue
		}
		done = append(done, l)
	}
	b.lanes = running
	for _, l := range done {
		b.moved = true
		l.timeline.close()
		l.out.pad()
		if err := b.feed.Done(l.c, l.out); err != nil {
			return err
		}
	}
	return nil
}

func (b *batchRun) close() {
	for _, l := range b.lanes {
		l.timeline.close()
	}
	if b.stepper != nil {
		b.stepper.close()
	}
}
