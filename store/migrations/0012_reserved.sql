-- Reserved for budgets (issue 27 item 3, branch h-budgets); nothing here.
SELECT 1;
