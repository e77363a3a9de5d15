m4_divert(-1)
# tkm.m4 - the m4 helper library every generated header starts from. Run with GNU `m4 -P`.
m4_dnl # Quotes become <@ @> (never valid C), comments are off so `#define` lines expand like any text.
m4_dnl # Template values are TKM_UPPER, helpers tkm_lower; tkgen fails the build if any survive expansion.
m4_changequote(<@,@>)
m4_changecom()

m4_dnl # tkm_error(MESSAGE): print `file:line: MESSAGE` and stop with a failure.
m4_define(<@tkm_error@>, <@m4_errprint(m4___file__:m4___line__: <@$1@>
)m4_m4exit(1)@>)

m4_dnl # tkm_nargs(NAME, EXPECTED, $#): fail loudly when a helper gets the wrong number of arguments.
m4_define(<@tkm_nargs@>, <@m4_ifelse(<@$2@>, <@$3@>, <@@>,
  <@tkm_error(<@$1: expected $2 arguments, got $3@>)@>)@>)

m4_dnl # tkm_for(VAR, FROM, TO, BODY): BODY once for each VAR in FROM..TO (nothing when FROM > TO).
m4_define(<@tkm_for@>, <@tkm_nargs(<@tkm_for@>, 4, $#)m4_ifelse(m4_eval(<@$2 > $3@>), 1, <@@>,
  <@m4_pushdef(<@$1@>, m4_eval(<@$2@>))_tkm_for(<@$1@>, m4_eval(<@$3@>), <@$4@>)m4_popdef(<@$1@>)@>)@>)
m4_define(<@_tkm_for@>, <@$3<@@>m4_ifelse($1, <@$2@>, <@@>,
  <@m4_define(<@$1@>, m4_incr($1))_tkm_for(<@$1@>, <@$2@>, <@$3@>)@>)@>)

m4_dnl # tkm_kloop(STEP): a microkernel's k loop: STEP TKM_KU times per iteration (TKM_U = 1..TKM_KU),
m4_dnl # then once per leftover k (TKM_U = 1). STEP is a macro name; p and k are the kernel's.
m4_define(<@tkm_kloop@>, <@tkm_nargs(<@tkm_kloop@>, 1, $#)m4_dnl
    for (; p < k - k % TKM_KU; p += TKM_KU) {
tkm_for(<@TKM_U@>, 1, TKM_KU, <@$1@>)m4_dnl
    }
    for (; p < k; p++) {
m4_pushdef(<@TKM_U@>, 1)$1<@@>m4_popdef(<@TKM_U@>)    }
@>)

m4_dnl # tkm_acc(I, V): the name of accumulator row I, vector V.
m4_define(<@tkm_acc@>, <@c$1_$2@>)
m4_divert(0)m4_dnl
