package synth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/childenv"
)

// festivalGrace is how long a process asked to stop (its stdin closed) may
// take to exit before it is killed.
const festivalGrace = 2 * time.Second

// festivalProc is one running `festival --pipe` with a voice loaded. Each
// request is a Scheme form followed by two markers written to stderr
// (which festival does not buffer): "ok N" only when the form succeeded,
// "end N" always, since festival reports an error and reads on.
type festivalProc struct {
	cmd    *exec.Cmd
	stdin  *os.File
	lines  chan string   // stderr lines; closed when stderr ends
	done   chan struct{} // closed by stop: the reader stops delivering
	exited chan struct{} // closed once the process is reaped
	dir    string        // the process's scratch folder for its WAV
	seq    int
}

// festivalRefusal is an error festival reported and survived (an unknown
// voice, text it cannot say): trying again would give it again.
type festivalRefusal struct{ msg string }

func (e *festivalRefusal) Error() string { return "festival refused: " + e.msg }

// startFestival starts a process and loads voice v, within deadline.
func startFestival(ctx context.Context, program, tempDir string, v Voice, deadline time.Duration) (*festivalProc, error) {
	setup, err := festivalVoiceSetup(v)
	if err != nil {
		return nil, &festivalRefusal{msg: err.Error()}
	}
	dir, err := os.MkdirTemp(tempDir, "floorbench-festival-*")
	if err != nil {
		return nil, err
	}
	p := &festivalProc{dir: dir, lines: make(chan string, 16), done: make(chan struct{}), exited: make(chan struct{})}
	if err := p.start(program); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if _, err := p.eval(ctx, setup, deadline); err != nil {
		p.stop(0)
		return nil, fmt.Errorf("load voice %s: %w", v.Name, err)
	}
	return p, nil
}

// start runs the program with pipes for stdin and stderr; a goroutine
// reads stderr to its end and then reaps the process, so none is left a
// zombie.
func (p *festivalProc) start(program string) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	p.cmd = exec.Command(program, "--pipe")
	p.cmd.Env = childenv.Minimal(os.LookupEnv)
	p.cmd.Stdin, p.cmd.Stderr = inR, errW
	err = p.cmd.Start()
	inR.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		errR.Close()
		return fmt.Errorf("start %s: %w", program, err)
	}
	p.stdin = inW
	go p.read(errR)
	return nil
}

// read delivers stderr lines until stderr ends or stop is called, then
// waits for the process.
func (p *festivalProc) read(r *os.File) {
	defer close(p.exited)
	defer p.cmd.Wait()
	defer r.Close()
	defer close(p.lines)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		select {
		case p.lines <- sc.Text():
		case <-p.done:
			return
		}
	}
}

// eval sends one form and waits for its markers. It returns festival's
// other output of the request; a form that failed gives a
// festivalRefusal, a process that died or missed the deadline (or a
// cancelled ctx) another error, after which the process is unusable.
func (p *festivalProc) eval(ctx context.Context, form string, deadline time.Duration) ([]string, error) {
	p.seq++
	ok, end := fmt.Sprintf("floorbench-ok %d", p.seq), fmt.Sprintf("floorbench-end %d", p.seq)
	req := fmt.Sprintf("(begin %s (format stderr \"%s\\n\"))\n(format stderr \"%s\\n\")\n", form, ok, end)
	if err := p.stdin.SetWriteDeadline(time.Now().Add(deadline)); err != nil {
		return nil, err
	}
	if _, err := p.stdin.WriteString(req); err != nil {
		return nil, fmt.Errorf("festival: write request: %w", err)
	}
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	var said []string
	succeeded := false
	for {
		select {
		case l, open := <-p.lines:
			switch {
			case !open:
				return said, fmt.Errorf("festival exited: %s", strings.Join(said, "; "))
			case l == ok:
				succeeded = true
			case l == end && succeeded:
				return said, nil
			case l == end:
				return said, &festivalRefusal{msg: strings.Join(said, "; ")}
			case len(said) < 8:
				said = append(said, strings.TrimSpace(l))
			}
		case <-timer.C:
			return said, fmt.Errorf("festival: no answer within %s", deadline)
		case <-ctx.Done():
			return said, ctx.Err()
		}
	}
}

// say renders text into the process's WAV and reads it at 16 kHz.
func (p *festivalProc) say(ctx context.Context, text string, deadline time.Duration) ([]float32, error) {
	wav := filepath.Join(p.dir, "utterance.wav")
	if err := os.Remove(wav); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	form := fmt.Sprintf("(utt.save.wave (utt.synth (Utterance Text %s)) %s 'riff)", festivalString(text), festivalString(wav))
	if _, err := p.eval(ctx, form, deadline); err != nil {
		return nil, err
	}
	x, err := audio.ReadWAV16k(wav)
	if err != nil {
		return nil, fmt.Errorf("festival output: %w", err)
	}
	return x, nil
}

// stop closes the process's stdin, which ends festival, kills it if it has
// not exited within grace, waits for it to be reaped and removes its
// folder.
func (p *festivalProc) stop(grace time.Duration) {
	p.stdin.Close()
	close(p.done)
	select {
	case <-p.exited:
	case <-time.After(grace):
		p.cmd.Process.Kill()
		select {
		case <-p.exited:
		case <-time.After(festivalGrace): // the reader reaps it when it dies
		}
	}
	os.RemoveAll(p.dir)
}
