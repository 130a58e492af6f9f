// A sandbox sbx leaves out is kept (issue 55): a fixture the layering check must refuse.
int kept = 1;
