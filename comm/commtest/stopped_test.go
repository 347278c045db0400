//go:build unix

package commtest

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpbench/mpbench/comm"
)

// envStoppedChild makes TestRunSurvivesStoppedProcess run its child part.
const envStoppedChild = "MPBENCH_COMMTEST_STOPPED_CHILD"

// TestRunSurvivesStoppedProcess: a test process stopped with SIGSTOP for
// longer than Timeout (2 s here, stopped 5 s) is not failed when it
// resumes: its ranks, barriers in a loop, finish within Timeout of running
// time. Before Timeout counted running time, the resumed process reported
// all three ranks as hung at once.
func TestRunSurvivesStoppedProcess(t *testing.T) {
	if os.Getenv(envStoppedChild) == "1" {
		stoppedChild(t)
		return
	}
	if testing.Short() {
		t.Skip("stops a child process for 5 s")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunSurvivesStoppedProcess$", "-test.v")
	cmd.Env = append(os.Environ(), envStoppedChild+"=1", EnvTimeout+"=2s", EnvTransport+"=inmem")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if sc.Text() == "ranks running" {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(5 * time.Second)
	cmd.Process.Signal(syscall.SIGCONT)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("child stopped for 5 s with a 2 s Timeout failed (%v):\n%s", err, log.String())
	}
}

// stoppedChild runs 3 ranks doing barriers until 5.5 s after they start
// (rank 0 decides and tells the others each round), printing "ranks
// running" once they do.
func stoppedChild(t *testing.T) {
	start := time.Now()
	Run(t, 3, comm.Config{}, func(c comm.Comm) error {
		if c.Rank() == 0 {
			os.Stdout.WriteString("ranks running\n")
		}
		for {
			more := []byte{0}
			if c.Rank() == 0 {
				if time.Since(start) < 5500*time.Millisecond {
					more[0] = 1
				}
				for r := 1; r < c.Size(); r++ {
					if err := c.Send(more, r, 1); err != nil {
						return err
					}
				}
			} else if _, err := c.Recv(more, 0, 1); err != nil {
				return err
			}
			if more[0] == 0 {
				return nil
			}
			if err := c.Barrier(); err != nil {
				return err
			}
		}
	})
}
