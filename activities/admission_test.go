package activities

import (
	"runtime"
	"testing"
)

// The zero admission runs ActivitySlots per queue with the activities'
// own memory budget; a budget given replaces it on a copy.
func TestAdmissionDefaults(t *testing.T) {
	if got := (Admission{}).PerQueue(); got != ActivitySlots() {
		t.Errorf("zero admission: %d slots, want %d", got, ActivitySlots())
	}
	a := &Activities{}
	if (Admission{}).Admitting(a) != a {
		t.Error("an admission without a budget copied the activities")
	}
	budget := NewMemoryBudget(1 << 30)
	if got := (Admission{Memory: budget}).Admitting(a); got.Memory != budget || a.Memory != nil {
		t.Errorf("budget %v on the copy, %v on the original", got.Memory, a.Memory)
	}
	if d := DefaultAdmission(); d.Slots != ActivitySlots() || d.Memory == nil || d.Memory.Bytes() != max(DefaultMemoryBytes(), 64<<20) {
		t.Errorf("default admission %+v", d)
	}
}

// A worker's slots stay at twice the machine's CPUs when GOMAXPROCS is
// lower, as the chart sets it from a worker's CPU request: halving them
// with GOMAXPROCS left the cores idle in the lab-scale run.
func TestActivitySlotsIgnoreGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if got, d := ActivitySlots(), DefaultAdmission(); got != 2*runtime.NumCPU() || d.Slots != got {
		t.Errorf("GOMAXPROCS 1 on %d CPUs: %d activity slots, default admission %d; want %d", runtime.NumCPU(), got, d.Slots, 2*runtime.NumCPU())
	}
}
