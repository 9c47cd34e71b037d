/** The URI scheme of proposal documents (a created file's proposed content). */
export const PROPOSAL_SCHEME = 'karyi-proposal';
