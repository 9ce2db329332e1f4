/** The flow through orval's fetch client (with the mutator of orval-fetch.ts). */

import { type Answer, describeFlow } from './flow.js';
import {
  collabsCreate,
  collabsDelete,
  collabsRetrieve,
  collabsSubmit,
  organizationsCreate,
  organizationsList,
  organizationsRetrieve,
} from './generated/orval-fetch/api.js';
import { configureFetch } from './orval-fetch.js';

const answer = async (
  call: Promise<{ status: number; data: unknown; headers: Headers }>,
): Promise<Answer> => {
  const { status, data, headers } = await call;
  return { status, data, header: (name) => headers.get(name) };
};

describeFlow('orval (fetch)', (baseUrl, token) => {
  configureFetch({ baseUrl, token });
  return {
    createOrganization: (name) => answer(organizationsCreate({ organization: { name } })),
    listOrganizations: (page) => answer(organizationsList({ page })),
    retrieveOrganization: (id, ifNoneMatch) =>
      answer(
        organizationsRetrieve(
          id,
          ifNoneMatch === undefined ? {} : { headers: { 'If-None-Match': ifNoneMatch } },
        ),
      ),
    createCollab: (orgId, name) => answer(collabsCreate(orgId, { collab: { name } })),
    // The 303 is the success: fetch must not follow it (`redirect: 'manual'`).
    submitCollab: (orgId, id) => answer(collabsSubmit(orgId, id, { redirect: 'manual' })),
    // Following it (fetch's default) reads the resource, as JSON when asked for.
    submitCollabFollowing: (orgId, id) =>
      answer(collabsSubmit(orgId, id, { headers: { Accept: 'application/json' } })),
    retrieveCollab: (orgId, id) => answer(collabsRetrieve(orgId, id)),
    deleteCollab: (orgId, id) => answer(collabsDelete(orgId, id)),
  };
});
