package activities

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/floor"
)

// Steps run together only while their costs fit the budget; a step larger
// than the budget runs alone instead of never.
func TestMemoryBudgetAdmitsWhatFits(t *testing.T) {
	b := NewMemoryBudget(100 << 20)
	var held, peak atomic.Int64
	var wg sync.WaitGroup
	for _, cost := range []int64{40 << 20, 40 << 20, 40 << 20, 30 << 20, 500 << 20, 10 << 20} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := b.admit(context.Background(), cost)
			if err != nil {
				t.Error(err)
				return
			}
			n := held.Add(min(cost, b.Bytes()))
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(20 * time.Millisecond)
			held.Add(-min(cost, b.Bytes()))
			release()
		}()
	}
	wg.Wait()
	if peak.Load() > b.Bytes() {
		t.Fatalf("steps holding %d bytes ran together under a budget of %d", peak.Load(), b.Bytes())
	}
	// A wait ends with its context.
	release, _ := b.admit(context.Background(), b.Bytes())
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := b.admit(ctx, 1); err == nil {
		t.Fatal("admitted beyond a full budget")
	}
	var none *MemoryBudget
	if r, err := none.admit(context.Background(), 1<<40); err != nil {
		t.Fatal(err)
	} else {
		r()
	}
}

func TestMemoryCosts(t *testing.T) {
	// A 3-minute, 4-speaker conversation at 16 kHz holds about 184 MB
	// through detection.
	if got := inferCost(corpus.Conversation{Samples: 180 * 16000, Speakers: 4}); got != 180*16000*4*16 {
		t.Errorf("inferCost %d", got)
	}
	// In a model stage it holds a window of each channel and its output
	// so far: about 5 MB.
	if got := modelCost(corpus.Conversation{Duration: 180, Samples: 180 * 16000, Speakers: 4}); got != 4*(1<<20+180*1200) {
		t.Errorf("modelCost %d", got)
	}
	g := &floor.GoldSet{Conversations: []floor.ConversationGold{{ID: "a", Duration: 60,
		EOT: floor.TaskGold{Positives: []floor.Anchor{{Speaker: 2, Time: 5}}}}}}
	if got := evaluateCost(g, nil); got != 60*100*2*48 { // 60 s at 100 Hz, 2 speakers, one task
		t.Errorf("evaluateCost %d", got)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"2GiB": 2 << 30, "512MiB": 512 << 20, "1500000000": 1500000000, "3G": 3e9, "1.5 GiB": 3 << 29} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1G", "lots", "NaN", "0", "1e20GiB"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
	if DefaultMemoryBytes() < 64<<20 {
		t.Errorf("default budget %d", DefaultMemoryBytes())
	}
}
