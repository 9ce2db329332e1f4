/** The flow through orval's axios client. */
import axios, { type AxiosResponse } from 'axios';
import { type Answer, describeFlow } from './flow.js';
import { getCreatorMarketplaceAPI } from './generated/orval-axios/api.js';

const answer = async (call: Promise<AxiosResponse<unknown>>): Promise<Answer> => {
  const res = await call;
  return {
    status: res.status,
    data: res.data,
    header: (name) => {
      const value = res.headers[name.toLowerCase()];
      return value === undefined || value === null ? null : String(value);
    },
  };
};

describeFlow('orval (axios)', (baseUrl, token) => {
  const api = getCreatorMarketplaceAPI(
    axios.create({
      baseURL: baseUrl,
      headers: { authorization: `Bearer ${token}` },
      // The 303 is the success: axios must not follow it, and must not call it an error; nor
      // any other answer the flow reads (422, 404, 304).
      maxRedirects: 0,
      validateStatus: () => true,
    }),
  );
  return {
    createOrganization: (name) => answer(api.organizationsCreate({ organization: { name } })),
    listOrganizations: (page) => answer(api.organizationsList({ page })),
    retrieveOrganization: (id, ifNoneMatch) =>
      answer(
        api.organizationsRetrieve(
          id,
          ifNoneMatch === undefined ? {} : { headers: { 'If-None-Match': ifNoneMatch } },
        ),
      ),
    createCollab: (orgId, name) => answer(api.collabsCreate(orgId, { collab: { name } })),
    submitCollab: (orgId, id) => answer(api.collabsSubmit(orgId, id)),
    // Following it (axios' default; its own `Accept` names JSON) reads the resource.
    submitCollabFollowing: (orgId, id) => answer(api.collabsSubmit(orgId, id, { maxRedirects: 5 })),
    retrieveCollab: (orgId, id) => answer(api.collabsRetrieve(orgId, id)),
    deleteCollab: (orgId, id) => answer(api.collabsDelete(orgId, id)),
  };
});
