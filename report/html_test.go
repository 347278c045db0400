package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/result"
)

// pageFiles are corpus files of the HTML tests: two PingPong runs that
// share a benchmark (overlaid), an OSU latency run and a run cut short.
var pageFiles = []string{pingPongFile, "005-imb2018u1-pingpong-wrapped.txt", "004-osu532-latency.txt", "033-imb-allreduce-np1024-hang-truncated-issue.txt"}

// corpusReports analyses the given corpus files under the study's model.
func corpusReports(t *testing.T, names ...string) []RunReport {
	t.Helper()
	var reps []RunReport
	for _, n := range names {
		path, runs := corpusRuns(t, n)
		for i, r := range runs {
			reps = append(reps, Analyze(path, i+1, len(runs), r, Options{Wire: studyModel(t), K: 7}))
		}
	}
	return reps
}

// externalRef matches a src or href attribute that loads from the network.
var externalRef = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:)?//`)

func TestHTMLSelfContained(t *testing.T) {
	reps := corpusReports(t, pageFiles...)
	figs := Figures(reps)
	var b bytes.Buffer
	if err := WriteHTML(&b, reps, HTMLOptions{Files: len(pageFiles), Wire: "ethernet-100"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("page loads from the network: %q", m)
	}
	for _, tag := range []string{"<script", "<link", "<img", "@import", "url("} {
		if strings.Contains(page, tag) {
			t.Errorf("page contains %q: it must need nothing beyond itself", tag)
		}
	}
	// PingPong time and bandwidth (two runs overlaid), osu_latency time
	// and bandwidth, Allreduce time: five figures.
	if len(figs) != 5 {
		t.Errorf("%d figures, want 5: %v", len(figs), figureIDs(figs))
	}
	for _, f := range figs {
		if !strings.Contains(page, `<figure class="plot" id="fig-`+f.ID+`">`) {
			t.Errorf("page lacks figure %s", f.ID)
		}
	}
	if n := strings.Count(page, "<svg "); n != len(figs) {
		t.Errorf("%d <svg> elements, want one per figure (%d)", n, len(figs))
	}
	if figs[0].ID != "latency-pingpong" || figs[0].Curves != 2 {
		t.Errorf("first figure %s with %d curves, want latency-pingpong overlaying the two PingPong runs", figs[0].ID, figs[0].Curves)
	}
	for _, want := range []string{"latency = mean difference of the first 7 sizes", "Wire time under ethernet-100",
		"Hockney fit", "ended early", "osu_latency np=2"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func figureIDs(figs []Figure) []string {
	var ids []string
	for _, f := range figs {
		ids = append(ids, f.ID)
	}
	return ids
}

func TestHTMLEscapesInput(t *testing.T) {
	run := result.Run{Meta: result.Meta{Tool: "IMB-MPI1", Version: "<b>2021</b>", MByte: result.MB,
		Command: `IMB-MPI1 "<script>alert(1)</script>"`},
		Problems: []result.Problem{{File: "x<y>.txt", Line: 3, Msg: "<script>alert(2)</script>"}}}
	for _, b := range []int64{0, 1, 2, 4} {
		r := result.NewRow("PingPong", 2, b)
		r.TMax = 1 + float64(b)
		run.Rows = append(run.Rows, r)
	}
	var out bytes.Buffer
	if err := WriteHTML(&out, []RunReport{Analyze("<evil>.txt", 1, 1, run, Options{})}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "<script") || strings.Contains(out.String(), "<b>2021") || strings.Contains(out.String(), "<evil>") {
		t.Error("text from the input file reached the page unescaped")
	}
	if !strings.Contains(out.String(), "&lt;script&gt;alert(2)") {
		t.Error("the problem's message is missing from the page")
	}
}

// chromium is Debian's headless browser (apt-get install chromium).
const chromium = "/usr/bin/chromium"

// TestHTMLInChromium loads the page in headless Chromium and checks that
// it renders without console errors and that every plot is in the DOM.
func TestHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("headless browser test skipped: /usr/bin/chromium not found (apt-get install -y chromium)")
	}
	reps := corpusReports(t, pageFiles...)
	figs := Figures(reps)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(f, reps, HTMLOptions{Files: len(pageFiles), Wire: "ethernet-100"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0",
		"--dump-dom", "file://"+page)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "uncaught") || strings.Contains(l, "console") {
			t.Errorf("browser console: %s", line)
		}
	}
	dom := stdout.String()
	if !strings.Contains(dom, "</html>") {
		t.Fatalf("no rendered DOM on stdout (%d bytes); stderr:\n%s", len(dom), stderr.String())
	}
	if n := strings.Count(dom, "<svg "); n != len(figs) {
		t.Errorf("DOM has %d <svg> elements, want %d", n, len(figs))
	}
	for _, fig := range figs {
		if !strings.Contains(dom, `id="fig-`+fig.ID+`"`) {
			t.Errorf("DOM lacks figure %s", fig.ID)
		}
	}
}

func TestFiguresSplitManyRuns(t *testing.T) {
	_, runs := corpusRuns(t, pingPongFile)
	var reps []RunReport
	for i := 0; i < MaxCurves+2; i++ {
		reps = append(reps, Analyze(fmt.Sprintf("run%02d.txt", i), 1, 1, runs[0], Options{}))
	}
	var curves []int
	for _, f := range Figures(reps) {
		if strings.HasPrefix(f.ID, "latency-") {
			curves = append(curves, f.Curves)
		}
	}
	if fmt.Sprint(curves) != fmt.Sprint([]int{MaxCurves, 2}) {
		t.Errorf("latency figures with %v curves, want [%d 2]", curves, MaxCurves)
	}
}
