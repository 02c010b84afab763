package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commandPaths lists every command of the tree under root, root first,
// each as its words after "floorbench".
func commandPaths(root *cobra.Command) [][]string {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(root, nil)
	return paths
}

// machineIndependentHelp makes the flag defaults that come from the
// environment (the user's config folder, FLOORBENCH_* variables) the same
// on every machine.
func machineIndependentHelp(t *testing.T) {
	t.Setenv("HOME", "/home/user")
	t.Setenv("XDG_CONFIG_HOME", "/home/user/.config")
	for _, v := range []string{"FLOORBENCH_DEVICE", "FLOORBENCH_ONNXRUNTIME", "FLOORBENCH_MEMORY_BUDGET", "FLOORBENCH_HEALTH_ADDR"} {
		t.Setenv(v, "")
	}
}

// TestHelpGolden checks `floorbench <cmd> --help` of every command
// against testdata/help.golden (-update rewrites it), and that every
// runnable command's help shows an example.
func TestHelpGolden(t *testing.T) {
	machineIndependentHelp(t)
	var all bytes.Buffer
	for _, path := range commandPaths(newRootCommand()) {
		root := newRootCommand()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(append(append([]string{}, path...), "--help"))
		if err := root.Execute(); err != nil {
			t.Fatalf("floorbench %s --help: %v", strings.Join(path, " "), err)
		}
		cmd, _, err := newRootCommand().Find(path)
		if err != nil {
			t.Fatal(err)
		}
		if cmd.Runnable() && !strings.Contains(out.String(), "\nExamples:\n") {
			t.Errorf("floorbench %s --help has no example", strings.Join(path, " "))
		}
		fmt.Fprintf(&all, "$ %s --help\n%s\n", strings.Join(append([]string{"floorbench"}, path...), " "), out.String())
	}
	golden := filepath.Join("testdata", "help.golden")
	if *update {
		if err := os.WriteFile(golden, all.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if all.String() != string(want) {
		t.Errorf("--help output differs from %s (go test -run TestHelpGolden -update rewrites it):\n%s", golden, all.String())
	}
}

// TestHelpStatesDurationUnits checks that every flag whose name or text
// speaks of a duration states its unit (switches like --wait aside).
func TestHelpStatesDurationUnits(t *testing.T) {
	machineIndependentHelp(t)
	duration := regexp.MustCompile(`(?i)\b(timeout|deadline|refractory|tolerance before|latency|interval|duration|wait|delay|period|poll)\b`)
	unit := regexp.MustCompile(`\b(seconds|milliseconds|minutes|ms|s|Go duration)\b|\d+(ms|s|m|h)\b`)
	root := newRootCommand()
	for _, path := range commandPaths(root) {
		cmd, _, _ := root.Find(path)
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "duration" || f.Value.Type() != "bool" && duration.MatchString(f.Name+" "+f.Usage) {
				if !unit.MatchString(f.Usage + " " + f.DefValue) {
					t.Errorf("floorbench %s --%s: %q states no unit", strings.Join(path, " "), f.Name, f.Usage)
				}
			}
		})
	}
}

// readmeCommands returns every floorbench command line shown in a code
// block of the README (fenced, or indented by four spaces), with its
// line number, continuation lines joined.
func readmeCommands(t *testing.T, path string) (lines []int, cmds [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	fenced, shell, n, start := false, false, 0, 0
	var pending string
	for sc.Scan() {
		n++
		line := sc.Text()
		if info, ok := strings.CutPrefix(strings.TrimSpace(line), "```"); ok {
			fenced, shell = !fenced, slices.Contains([]string{"", "sh", "bash", "shell", "console"}, info)
			continue
		}
		if fenced && !shell || !fenced && !strings.HasPrefix(line, "    ") && pending == "" {
			continue
		}
		// Box drawing is a diagram that names commands, not a command.
		if strings.ContainsFunc(line, func(r rune) bool { return r >= 0x2500 && r <= 0x257f }) {
			continue
		}
		if pending == "" {
			start = n
		}
		text := pending + " " + strings.TrimSpace(line)
		if strings.HasSuffix(text, `\`) {
			pending = strings.TrimSuffix(text, `\`)
			continue
		}
		pending = ""
		for _, words := range shellCommands(text) {
			if len(words) > 0 && words[0] == "floorbench" {
				lines, cmds = append(lines, start), append(cmds, words[1:])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, cmds
}

// shellWords splits a line into words at blanks outside quotes; a quoted
// stretch ("0 3 * * *") stays one word, without its quotes.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, in = r, true
		case quote == 0 && (r == ' ' || r == '\t'):
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// shellCommands splits a shell line into its commands (at &&, ||, ;
// and pipes), dropping comments, redirections and a leading $ or time.
// The README's notation is read too: [optional] words lose their
// brackets and a|b alternatives inside a word stand for their first.
func shellCommands(line string) [][]string {
	var cmds [][]string
	var cur []string
	words := shellWords(line)
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, "#"):
			i = len(words)
			continue
		case w == "&&" || w == "||" || w == ";" || w == "|":
			cmds, cur = append(cmds, cur), nil
			continue
		case w == ">" || w == ">>" || w == "2>" || w == "<":
			i++
			continue
		case strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>"):
			continue
		case len(cur) == 0 && (w == "$" || w == "time"):
			continue
		case w == "..." || w == "…":
			continue
		}
		w = strings.Trim(w, "[]")
		w = strings.Trim(w, `'"`)
		if alt, _, ok := strings.Cut(w, "|"); ok && alt != "" {
			w = alt
		}
		if w != "" {
			cur = append(cur, w)
		}
	}
	return append(cmds, cur)
}

// checkCommandLine parses args (the words after "floorbench") as the
// command line would, without running anything: the command exists and
// runs, every flag exists on it, required flags are given, flag groups
// and positional arguments are valid.
func checkCommandLine(args []string) error {
	root := newRootCommand()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	if err := cmd.ParseFlags(rest); err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		return nil
	}
	if v := cmd.Flags().Lookup("version"); v != nil && v.Changed {
		return nil
	}
	if !cmd.Runnable() {
		return fmt.Errorf("%s is not a command that runs (it needs a subcommand)", cmd.CommandPath())
	}
	if err := cmd.ValidateRequiredFlags(); err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	if err := cmd.ValidateFlagGroups(); err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	return nil
}

// TestReadmeCommandsParse checks that every floorbench command the README
// shows in a code block names a command that exists, with flags that
// exist on it, its required flags and valid arguments.
func TestReadmeCommandsParse(t *testing.T) {
	machineIndependentHelp(t)
	readme := filepath.Join("..", "..", "README.md")
	lines, cmds := readmeCommands(t, readme)
	if len(cmds) < 10 {
		t.Fatalf("found only %d floorbench commands in %s", len(cmds), readme)
	}
	for i, args := range cmds {
		if err := checkCommandLine(args); err != nil {
			t.Errorf("README.md:%d: floorbench %s: %v", lines[i], strings.Join(args, " "), err)
		}
	}
}

// TestDocsCommandsParse applies the README check to the documents in
// docs/, where the reference sections of the README moved: every
// floorbench command they show in a code block parses.
func TestDocsCommandsParse(t *testing.T) {
	machineIndependentHelp(t)
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, doc := range docs {
		lines, cmds := readmeCommands(t, doc)
		total += len(cmds)
		for i, args := range cmds {
			if err := checkCommandLine(args); err != nil {
				t.Errorf("%s:%d: floorbench %s: %v", filepath.ToSlash(strings.TrimPrefix(doc, filepath.Join("..", "..")+string(filepath.Separator))), lines[i], strings.Join(args, " "), err)
			}
		}
	}
	if total < 20 {
		t.Fatalf("found only %d floorbench commands in docs/*.md", total)
	}
}

// TestCheckCommandLineRefuses checks that the README check catches what
// it is for: a missing flag, a missing required flag, a missing command,
// wrong arguments; and passes correct lines.
func TestCheckCommandLineRefuses(t *testing.T) {
	machineIndependentHelp(t)
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{"floorbench bundle get ID --out results/", true},
		{"floorbench bundle get ID", false},
		{"floorbench score --gold g.json --predictions p.json --no-such-flag 1", false},
		{"floorbench score --gold g.json --predictions p.json --refractory 2", false},
		{"floorbench bundle ls --temporal-address localhost:7233", false},
		{"floorbench store verify --namespace default", false},
		{"floorbench sweep --gold g.json --probs p.json --fp-budget-test 0.2", false},
		{"floorbench no-such-command", false},
		{"floorbench corpus", false},
		{"floorbench corpus check", false},
		{"floorbench corpus export mptb/ --format rttm|textgrid --out exports/ # comment", true},
		{"floorbench corpus stats mptb/ [-o json] > stats.json", true},
		{"floorbench --version", true},
		{"floorbench quickstart spec.yaml", true},
		{"floorbench quickstart a.yaml b.yaml", false},
	} {
		cmds := shellCommands(c.line)
		err := checkCommandLine(cmds[0][1:])
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v, want ok=%v", c.line, err, c.ok)
		}
	}
}

// TestExamplesParse checks that every line of every command's Example
// parses as the command line it shows, and that every example belongs to
// a command.
func TestExamplesParse(t *testing.T) {
	machineIndependentHelp(t)
	root := newRootCommand()
	for path := range examples {
		if c, _, err := root.Find(strings.Fields(path)); err != nil || c.CommandPath() != strings.TrimSpace("floorbench "+path) {
			t.Errorf("example for %q: no such command", path)
		}
	}
	for _, path := range commandPaths(root) {
		cmd, _, _ := root.Find(path)
		for _, line := range strings.Split(strings.ReplaceAll(cmd.Example, "\\\n", " "), "\n") {
			text := strings.TrimSpace(line)
			if !strings.HasPrefix(text, "floorbench ") {
				continue
			}
			for _, words := range shellCommands(text) {
				if err := checkCommandLine(words[1:]); err != nil {
					t.Errorf("example of floorbench %s: %s: %v", strings.Join(path, " "), text, err)
				}
			}
		}
	}
}

// TestHelpStatesEachDefaultOnce checks that no flag whose default --help
// prints ("(default 3)") states another default in its own text.
func TestHelpStatesEachDefaultOnce(t *testing.T) {
	machineIndependentHelp(t)
	root := newRootCommand()
	for _, path := range commandPaths(root) {
		cmd, _, _ := root.Find(path)
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			_, usage := pflag.UnquoteUsage(f)
			printed := f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "[]"
			if printed && strings.Contains(strings.ToLower(usage), "default") {
				t.Errorf("floorbench %s --%s states a default besides (default %s): %q", strings.Join(path, " "), f.Name, f.DefValue, usage)
			}
		})
	}
}
