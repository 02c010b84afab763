// Package dialogue names what every corpus says about a conversation
// besides its audio and labels (docs/architecture.md#domain-model): its id,
// its split and, for generated (MPTB) conversations, its interaction type.
// The generator (internal/synth) and the native format (internal/corpus)
// share these names, and neither needs the other for them.
package dialogue

import (
	"fmt"

	"github.com/floorbench/floorbench/internal/names"
)

// Split is the partition a conversation belongs to.
type Split string

// The two splits of docs/architecture.md#domain-model.
const (
	Dev  Split = "dev"
	Test Split = "test"
)

// idPattern is what a conversation id may look like: it becomes a folder
// name, so no separators, dots first or anything a shell would mangle.
var idPattern = names.MustForm(`^[a-z0-9][a-z0-9_-]*$`, 64)

// ValidID reports whether id is safe as a conversation id and folder name.
func ValidID(id string) bool { return idPattern.Match(id) }

// InteractionType is one of MPTB's six conversational regimes.
type InteractionType string

// The six interaction types, in the paper's order.
const (
	Casual        InteractionType = "casual"
	TaskOriented  InteractionType = "task_oriented"
	Instructional InteractionType = "instructional"
	Collaborative InteractionType = "collaborative"
	Argumentative InteractionType = "argumentative"
	Narrative     InteractionType = "narrative"
)

// InteractionTypes lists every type in output order.
var InteractionTypes = []InteractionType{Casual, TaskOriented, Instructional, Collaborative, Argumentative, Narrative}

// ParseInteractionType reads a type name.
func ParseInteractionType(s string) (InteractionType, error) {
	for _, t := range InteractionTypes {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("unknown interaction type %q", s)
}
