package ingestlytest

import (
	"fmt"
	"strings"
	"time"

	"github.com/jobpoll/poll/providers/ingestly"
)

// Id prefixes: ids look like Ingestly's (UUIDs) and are predictable, so
// examples can print them.
const (
	documentPrefix = "0199a6c2-3f1e-7b2a-9c4d-"
	runPrefix      = "0199a6c2-4b7d-7e01-8f3a-"
	taskPrefix     = "0199a6c2-5c8e-7f12-9a4b-"
)

// defaultStages is the life of a run whose script gives none.
var defaultStages = []Stage{
	{Status: ingestly.RunQueued, Polls: 1},
	{Status: ingestly.RunRunning, Polls: 1},
	{Status: ingestly.RunCompleted},
}

type document struct {
	id, workflowID, reference string
	script                    Script
	created                   time.Time
	reads                     int // GET /documents/{id}, for a held release
	held                      bool
	runID                     string
}

type run struct {
	id, documentID, workflowID string
	script                     Script
	stages                     []Stage
	created                    time.Time
	hiddenPolls                int // polls answered 404 so far
	visible                    bool
	stage                      int
	stageStart                 time.Time
	stagePolls                 int // polls that saw the current stage
}

type task struct {
	ingestly.ReviewTask
	stage int // the stage that opened it; -1 when added by AddReviewTasks
}

func (s *Server) newID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s%012d", prefix, s.seq)
}

// submit stores a new document and, unless it is held, its run.
func (s *Server) submit(workflowID, reference string, sc Script, now time.Time) (*document, ingestly.TriggerResponse) {
	doc := &document{id: s.newID(documentPrefix), workflowID: workflowID, reference: reference, script: sc, created: now, held: sc.Held}
	s.documents[doc.id] = doc
	resp := ingestly.TriggerResponse{DocumentID: doc.id, Status: ingestly.RunQueued, Reference: reference}
	if sc.Held {
		resp.Status = ingestly.DocumentHeld
		return doc, resp
	}
	resp.RunID = s.newRun(doc, now).id
	return doc, resp
}

func (s *Server) newRun(doc *document, now time.Time) *run {
	r := &run{id: s.newID(runPrefix), documentID: doc.id, workflowID: doc.workflowID, script: doc.script, stages: doc.script.Stages, created: now}
	if len(r.stages) == 0 {
		r.stages = defaultStages
	}
	s.runs[r.id] = r
	doc.runID = r.id
	return r
}

func (s *Server) release(doc *document, now time.Time) *run {
	doc.held = false
	return s.newRun(doc, now)
}

// readDocument applies a read of the document: a held document is released
// once HeldPolls reads saw it held and HeldFor passed. countRead is false
// for reads that only let time pass.
func (s *Server) readDocument(doc *document, now time.Time, countRead bool) {
	sc := doc.script
	if doc.held && (sc.HeldPolls > 0 || sc.HeldFor > 0) && doc.reads >= sc.HeldPolls && now.Sub(doc.created) >= sc.HeldFor {
		s.release(doc, now)
	}
	if countRead {
		doc.reads++
	}
	if r := s.runs[doc.runID]; r != nil {
		s.reveal(r, now, false)
	}
}

// reveal reports whether the run exists yet. A poll that finds it missing
// counts towards NotFoundPolls.
func (s *Server) reveal(r *run, now time.Time, poll bool) bool {
	if r.visible {
		s.advance(r, now, false)
		return true
	}
	if r.script.NeverCreated {
		return false
	}
	if r.hiddenPolls >= r.script.NotFoundPolls && now.Sub(r.created) >= r.script.NotFoundFor {
		r.visible = true
		start := r.created.Add(r.script.NotFoundFor)
		if r.script.NotFoundPolls > 0 {
			start = now
		}
		s.enter(r, 0, start)
		s.advance(r, now, false)
		return true
	}
	if poll {
		r.hiddenPolls++
	}
	return false
}

// poll records one GET /runs/{id} of a visible run.
func (s *Server) poll(r *run, now time.Time) {
	s.advance(r, now, true)
	r.stagePolls++
}

// advance moves the run through every stage that has ended by now. A stage
// with Polls ends only at a poll, the first one after Polls polls saw it
// and For passed; a stage without Polls ends on any read once For passed,
// at the moment it did.
func (s *Server) advance(r *run, now time.Time, atPoll bool) {
	for r.stage < len(r.stages)-1 {
		cur := r.stages[r.stage]
		end := r.stageStart.Add(cur.For)
		if end.After(now) {
			return
		}
		if cur.Polls > 0 {
			if !atPoll || r.stagePolls < cur.Polls {
				return
			}
			end = now
		}
		s.leave(r)
		s.enter(r, r.stage+1, end)
	}
}

func (s *Server) enter(r *run, stage int, start time.Time) {
	r.stage, r.stageStart, r.stagePolls = stage, start, 0
	st := r.stages[stage]
	if strings.EqualFold(st.Status, ingestly.RunReview) {
		n := st.ReviewTasks
		if n == 0 {
			n = 1
		}
		for range n {
			s.tasks = append(s.tasks, &task{
				ReviewTask: ingestly.ReviewTask{ID: s.newID(taskPrefix), RunID: r.id, Status: ingestly.ReviewTaskPending},
				stage:      stage,
			})
		}
	}
}

// leave finishes the review tasks the current stage opened.
func (s *Server) leave(r *run) {
	decision := r.stages[r.stage].Decision
	if decision == "" {
		decision = ingestly.DecisionApproved
	}
	for _, t := range s.tasks {
		if t.RunID == r.id && t.stage == r.stage && t.Status == ingestly.ReviewTaskPending {
			t.Status, t.Decision = ReviewTaskCompleted, decision
		}
	}
}

func (r *run) status() string { return r.stages[r.stage].Status }

// view is the run as the API shows it.
func (r *run) view() ingestly.Run {
	v := ingestly.Run{ID: r.id, DocumentID: r.documentID, WorkflowID: r.workflowID, Status: r.status()}
	switch strings.ToLower(v.Status) {
	case ingestly.RunFailed:
		v.Error = r.script.Error
		if v.Error == nil {
			v.Error = &ingestly.RunError{Code: "node_failed", Message: "a node of the workflow failed"}
		}
	case ingestly.RunCancelled:
		v.Error = r.script.Error
		if v.Error == nil {
			v.Error = &ingestly.RunError{Code: "cancelled_by_user"}
		}
	}
	return v
}

// documentStatus is the document's status, derived from its run.
func (s *Server) documentStatus(doc *document) string {
	if doc.held {
		return ingestly.DocumentHeld
	}
	r := s.runs[doc.runID]
	switch {
	case r == nil:
		return ingestly.DocumentUploaded
	case r.script.NeverCreated:
		if doc.script.DocumentStatus != "" {
			return doc.script.DocumentStatus
		}
		return ingestly.DocumentFailed
	case !r.visible:
		return ingestly.DocumentProcessing
	}
	switch st := strings.ToLower(r.status()); st {
	case ingestly.RunReview, ingestly.RunCompleted, ingestly.RunFailed, ingestly.RunCancelled:
		return st
	}
	return ingestly.DocumentProcessing
}
