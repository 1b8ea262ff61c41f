package score_test

import (
	"fmt"
	"strings"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/score"
)

func Example() {
	m, _ := mlnfile.Parse("uni.mln", []byte("person = {Ann, Bob}\nAdvisedBy(person, person)\n"))
	truth, _ := mlnfile.ReadDB(strings.NewReader("AdvisedBy(Ann, Bob)\n"), "truth.db", m)
	// an Alchemy .result: one atom and its probability per line
	ans, _ := score.ReadAnswer(strings.NewReader(`AdvisedBy(Ann,Ann) 0.1
AdvisedBy(Ann,Bob) 0.7
AdvisedBy(Bob,Ann) 0.4
AdvisedBy(Bob,Bob) 0.05
`), "uni.result")
	r, err := score.Score(m, truth, nil, ans, score.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	o := r.Overall
	fmt.Printf("%d atoms, %d true: CLL %.4f, AUC-PR %.3f, AUC-ROC %.3f, accuracy %.2f, F1 %.2f, Brier %.4f\n",
		o.Atoms, o.Positives, o.CLL, o.AUCPR, o.AUCROC, o.Accuracy, o.F1, o.Brier)
	// Output:
	// 4 atoms, 1 true: CLL -0.2560, AUC-PR 1.000, AUC-ROC 1.000, accuracy 1.00, F1 1.00, Brier 0.0656
}
