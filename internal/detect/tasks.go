package detect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/floorbench/floorbench/internal/floor"
)

// tasksOfRoles are the tasks a model with outputs of these roles scores:
// both where one output is voice activity (the floor mapping derives EOT
// and INT from it), else the tasks of its direct eot and int outputs, in
// floor.Tasks order. A model of an eot output alone (Smart Turn,
// Turn-1-Mini) is EOT-only.
func tasksOfRoles(roles []string) []floor.Task {
	if slices.Contains(roles, RoleActivity) {
		return floor.Tasks
	}
	var out []floor.Task
	for _, t := range floor.Tasks {
		if slices.Contains(roles, string(t)) {
			out = append(out, t)
		}
	}
	return out
}

// Tasks are the tasks the system scores, in floor.Tasks order (package
// documentation, "Tasks"): both for the voice activity families, those the
// score roles of an onnx section give, and for external the tasks its
// spec's tasks field claims, else both. A task it does not score has no track, no evaluation and no row.
func (s *System) Tasks(rt Runtime) ([]floor.Task, error) {
	switch {
	case s.family.Name == "external":
		return s.externalTasks(rt)
	case s.onnx != nil:
		return tasksOfRoles(s.outputRoles()), nil
	default:
		return floor.Tasks, nil
	}
}

// externalTasks are the tasks an external system reads files for: those
// its spec's tasks field claims, else both, each file required. A missing
// file is an error, never a task quietly dropped: a system of one task
// says so (tasks: [eot]).
func (s *System) externalTasks(rt Runtime) ([]floor.Task, error) {
	dir := s.resolve(s.values["dir"].(string), rt)
	claimed := s.tasks
	if claimed == nil {
		claimed = floor.Tasks
	}
	for i, t := range floor.Tasks {
		if !slices.Contains(claimed, t) {
			continue
		}
		path := filepath.Join(dir, ProbsFileNames[i])
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("external: %s is not there (params.dir %s; a system that scores one task says so in its spec: tasks: [eot] or [int])", path, dir)
		} else if err != nil {
			return nil, fmt.Errorf("external: %w", err)
		}
	}
	return claimed, nil
}

// parseTasks checks a spec's tasks field: eot and int at most once each,
// at least one, returned in floor.Tasks order.
func parseTasks(names []string) ([]floor.Task, error) {
	if len(names) == 0 {
		return nil, errors.New("tasks: empty; list eot, int or both, or leave the field out")
	}
	var out []floor.Task
	for i, n := range names {
		t := floor.Task(n)
		if !slices.Contains(floor.Tasks, t) {
			return nil, fmt.Errorf("tasks[%d] %q: want %s or %s", i, n, floor.TaskEOT, floor.TaskINT)
		}
		if slices.Contains(out, t) {
			return nil, fmt.Errorf("tasks[%d]: %s given twice", i, n)
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b floor.Task) int { return slices.Index(floor.Tasks, a) - slices.Index(floor.Tasks, b) })
	return out, nil
}

// checkDeclaredTasks requires a declared tasks field to say what a family
// that computes its scores scores: the field is a claim, checked, not a
// switch (an external system's claim picks its files, externalTasks).
func (s *System) checkDeclaredTasks() error {
	if s.tasks == nil || s.family.Name == "external" {
		return nil
	}
	want, err := s.Tasks(Runtime{})
	if err != nil {
		return err
	}
	if !slices.Equal(s.tasks, want) {
		from := "its voice activity, through the floor mapping"
		if s.onnx != nil {
			from = "the roles of onnx.scores"
		}
		return fmt.Errorf("tasks %v: family %s scores %v, from %s", s.tasks, s.family.Name, want, from)
	}
	return nil
}

// Tracks are the scores' tracks of task t; nil for a task the system does
// not score.
func (s *Scores) Tracks(t floor.Task) [][]float64 {
	if t == floor.TaskINT {
		return s.INT
	}
	return s.EOT
}

// keepTasks drops the tracks of every task not in tasks.
func (s *Scores) keepTasks(tasks []floor.Task) { dropUnscored(tasks, &s.EOT, &s.INT) }

// dropUnscored sets the EOT or INT scores of a task not in tasks to nil:
// whole tracks (Scores) or one frame (StreamFrame) alike.
func dropUnscored[T any](tasks []floor.Task, eot, intr *T) {
	var none T
	if !slices.Contains(tasks, floor.TaskEOT) {
		*eot = none
	}
	if !slices.Contains(tasks, floor.TaskINT) {
		*intr = none
	}
}

// externalFiles are the probability files an external system reads: those
// of its tasks, in ProbsFileNames order.
func (s *System) externalFiles(rt Runtime) ([]string, error) {
	tasks, err := s.externalTasks(rt)
	if err != nil {
		return nil, err
	}
	var names []string
	for i, t := range floor.Tasks {
		if slices.Contains(tasks, t) {
			names = append(names, ProbsFileNames[i])
		}
	}
	return names, nil
}
